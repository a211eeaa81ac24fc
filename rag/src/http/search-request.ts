import { isSearchMode, SEARCH_MODES, type SearchMode, type SearchOptions } from '../search/hybrid-search.js';
import { ApiError } from './api-errors.js';

/** A validated POST /search body, defaults applied: the search options a client may choose. */
export type SearchRequest = Omit<SearchOptions, 'weights'>;

/** What the index being searched can do. */
export interface IndexCapabilities {
  /** False for an index built with `embed_model: none`. */
  readonly vectors: boolean;
}

/** docs/retrieval.md#post-search: top is an integer 1 to 50, default 8. */
export const TOP_MIN = 1;
export const TOP_MAX = 50;
/**
 * docs/retrieval.md#query-limits: a query is at most 1,000 characters and 64 terms (words between
 * spaces). Every step of a search grows with the query (tokenizing, the lexical leg's phrase and
 * terms), and the steps run on the event loop, so an unbounded query would stall every other request.
 */
export const QUERY_MAX_CHARACTERS = 1_000;
export const QUERY_MAX_TERMS = 64;
/** Defaults and their reasons: docs/retrieval.md#post-search. `mode` is `lexical` on an index without vectors. */
export const SEARCH_DEFAULTS = { top: 8, mode: 'hybrid', mmr: false, mmrLambda: 0.7 } as const;

const FIELDS = ['query', 'top', 'vaults', 'namespaces', 'mode', 'hybrid', 'mmr', 'mmr_lambda'] as const;
const NO_VECTORS = 'this index has no vectors (embed_model: none); use mode "lexical"';

/**
 * Checks a parsed JSON body against docs/retrieval.md#post-search. Unknown
 * fields are refused by name, as are vault ids the config does not declare,
 * and what the index cannot do (docs/retrieval.md#lexical-only-indexes).
 */
export function parseSearchRequest(
  body: unknown,
  knownVaults: readonly string[],
  capabilities: IndexCapabilities,
): SearchRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ApiError('invalid_json', 'the request body must be a JSON object');
  }
  const fields: Record<string, unknown> = { ...body };
  const unknown = Object.keys(fields).filter((key) => !(FIELDS as readonly string[]).includes(key));
  if (unknown.length > 0) {
    throw new ApiError(
      'unknown_field',
      `unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => JSON.stringify(k)).join(', ')} (allowed: ${FIELDS.join(', ')})`,
    );
  }
  const vaults = stringList(fields.vaults, 'vaults');
  const missing = vaults?.filter((id) => !knownVaults.includes(id)) ?? [];
  if (missing.length > 0) {
    throw new ApiError(
      'unknown_vault',
      `unknown vault${missing.length > 1 ? 's' : ''} ${missing.map((id) => JSON.stringify(id)).join(', ')} (known: ${knownVaults.join(', ')})`,
    );
  }
  const mmr = boolean(fields.mmr, 'mmr', SEARCH_DEFAULTS.mmr);
  if (mmr && !capabilities.vectors) throw new ApiError('invalid_field', `mmr: needs vectors, and ${NO_VECTORS}`);
  return {
    query: parseQuery(fields.query),
    top: parseTop(fields.top),
    vaults,
    namespaces: stringList(fields.namespaces, 'namespaces'),
    mode: parseMode(fields.mode, fields.hybrid, capabilities),
    mmr,
    mmrLambda: parseLambda(fields.mmr_lambda),
  };
}

/**
 * `mode`, or its older spelling `hybrid` (true: hybrid, false: dense); both
 * given must agree. Without either: hybrid where there are vectors, else lexical.
 */
function parseMode(mode: unknown, hybrid: unknown, capabilities: IndexCapabilities): SearchMode {
  const alias = boolean(hybrid, 'hybrid', true);
  const aliasMode: SearchMode = alias ? 'hybrid' : 'dense';
  if (mode !== undefined && !isSearchMode(mode)) {
    throw new ApiError('invalid_field', `mode: must be one of ${SEARCH_MODES.join(', ')}`);
  }
  const chosen = mode;
  if (chosen !== undefined && hybrid !== undefined && chosen !== aliasMode) {
    throw new ApiError(
      'invalid_field',
      `mode: "${chosen}" contradicts hybrid: ${String(alias)} (hybrid: true is mode "hybrid", false is mode "dense")`,
    );
  }
  if (!capabilities.vectors) {
    if (chosen !== undefined && chosen !== 'lexical') {
      throw new ApiError('invalid_field', `mode: "${chosen}" needs vectors, and ${NO_VECTORS}`);
    }
    if (chosen === undefined && hybrid !== undefined) {
      throw new ApiError('invalid_field', `hybrid: mode "${aliasMode}" needs vectors, and ${NO_VECTORS}`);
    }
    return 'lexical';
  }
  return chosen ?? aliasMode;
}

function parseQuery(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new ApiError('invalid_field', 'query: must be a non-empty string');
  }
  if (exceedsCodePoints(value, QUERY_MAX_CHARACTERS)) {
    throw new ApiError('invalid_field', `query: must be at most ${QUERY_MAX_CHARACTERS} characters`);
  }
  if (value.trim().split(/\s+/u).length > QUERY_MAX_TERMS) {
    throw new ApiError('invalid_field', `query: must be at most ${QUERY_MAX_TERMS} terms (words between spaces)`);
  }
  return value;
}

/** Code points, not UTF-16 units (a character outside the BMP counts once), counted only as far as needed. */
function exceedsCodePoints(text: string, max: number): boolean {
  if (text.length <= max) return false;
  let count = 0;
  for (const _ of text) if (++count > max) return true;
  return false;
}

function parseTop(value: unknown): number {
  if (value === undefined) return SEARCH_DEFAULTS.top;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < TOP_MIN || value > TOP_MAX) {
    throw new ApiError('invalid_field', `top: must be an integer from ${TOP_MIN} to ${TOP_MAX}`);
  }
  return value;
}

function parseLambda(value: unknown): number {
  if (value === undefined) return SEARCH_DEFAULTS.mmrLambda;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) {
    throw new ApiError('invalid_field', 'mmr_lambda: must be a number from 0 to 1');
  }
  return value;
}

function boolean(value: unknown, field: string, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw new ApiError('invalid_field', `${field}: must be true or false`);
  return value;
}

/** An absent list is no restriction; an empty one would match nothing and is refused as a likely mistake. */
function stringList(value: unknown, field: string): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length === 0 || !value.every((item) => typeof item === 'string')) {
    throw new ApiError('invalid_field', `${field}: must be a non-empty list of strings`);
  }
  return [...new Set(value.map(String))];
}
