import { tagProblem } from '../chunk/tags.js';
import { isSearchMode, SEARCH_MODES, type SearchMode, type SearchOptions } from './hybrid-search.js';

/** A validated search request, defaults applied: the search options a client may choose. */
export type SearchRequest = Omit<SearchOptions, 'weights'>;

/** What the request is checked against: the index being searched and the vaults it may name. */
export interface SearchContext {
  /** Vault ids a request may name (docs/retrieval.md#post-search). */
  readonly vaults: readonly string[];
  /** False for an index built with `embed_model: none` (docs/retrieval.md#lexical-only-indexes). */
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
export const SEARCH_DEFAULTS = { top: 8, mode: 'hybrid', mmr: false, mmrLambda: 0.7, files: false } as const;

/**
 * What was wrong: the body is not an object, it has fields outside the table, it names a vault the
 * context does not know, a field's value is wrong, or the request needs vectors the index does not have.
 */
export type SearchRequestProblem =
  | 'not_an_object'
  | 'unknown_field'
  | 'unknown_vault'
  | 'invalid_value'
  | 'needs_vectors';

export interface SearchRequestFailure {
  readonly ok: false;
  readonly kind: SearchRequestProblem;
  /** The field the problem is about; undefined for the body as a whole. */
  readonly field: SearchField | undefined;
  /** What is wrong with it, for a person (without the field's name). */
  readonly problem: string;
}

export type SearchRequestCheck = { readonly ok: true; readonly request: SearchRequest } | SearchRequestFailure;

type Read<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problem: string };

/** The request's fields as clients write them (docs/retrieval.md#post-search). */
export const SEARCH_FIELDS = [
  'query',
  'top',
  'vaults',
  'namespaces',
  'tags',
  'mode',
  'hybrid',
  'mmr',
  'mmr_lambda',
  'files',
] as const;
export type SearchField = (typeof SEARCH_FIELDS)[number];

/**
 * How each field's value is read, defaults applied (a field of SEARCH_FIELDS without a reader does
 * not compile). Rules across fields (vault ids, mode and its older spelling, what needs vectors) are
 * in `checkSearchRequest`.
 */
const FIELDS = {
  query: readQuery,
  top: (value: unknown) => readInteger(value, TOP_MIN, TOP_MAX, SEARCH_DEFAULTS.top),
  vaults: readStringList,
  namespaces: readStringList,
  tags: readTags,
  mode: readMode,
  hybrid: (value: unknown) => readBoolean(value, undefined),
  mmr: (value: unknown) => readBoolean(value, SEARCH_DEFAULTS.mmr),
  mmr_lambda: (value: unknown) => readFraction(value, SEARCH_DEFAULTS.mmrLambda),
  files: (value: unknown) => readBoolean(value, SEARCH_DEFAULTS.files),
} satisfies Record<SearchField, (value: unknown) => Read<unknown>>;

type Fields = { readonly [F in SearchField]: ReadValue<ReturnType<(typeof FIELDS)[F]>> };
type ReadValue<R> = R extends { readonly ok: true; readonly value: infer T } ? T : never;

const NO_VECTORS = 'this index has no vectors (embed_model: none); use mode "lexical"';

/**
 * Checks a search request (a parsed JSON body, tool arguments, or flags made into one) against
 * docs/retrieval.md#post-search, applying the defaults. Unknown fields are refused by name, as are
 * vault ids the context does not know and what the index cannot do. Every door (POST /search,
 * `notegate-rag search`, the `notes.search` tool) runs this once per request and translates the
 * result; none restates a rule.
 */
export function checkSearchRequest(input: unknown, context: SearchContext): SearchRequestCheck {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return refuse('not_an_object', undefined, 'the request body must be a JSON object');
  }
  const given: Record<string, unknown> = { ...input };
  const unknown = Object.keys(given).filter((key) => !isSearchField(key));
  if (unknown.length > 0) {
    const names = unknown.map((key) => JSON.stringify(key)).join(', ');
    return refuse(
      'unknown_field',
      undefined,
      `unknown field${plural(unknown)} ${names} (allowed: ${SEARCH_FIELDS.join(', ')})`,
    );
  }
  const read = readFields(given);
  if (!read.ok) return read;
  const fields = read.value;
  const missing = fields.vaults?.filter((id) => !context.vaults.includes(id)) ?? [];
  if (missing.length > 0) {
    const names = missing.map((id) => JSON.stringify(id)).join(', ');
    return refuse(
      'unknown_vault',
      'vaults',
      `unknown vault${plural(missing)} ${names} (known: ${context.vaults.join(', ')})`,
    );
  }
  if (fields.mmr && !context.vectors) return refuse('needs_vectors', 'mmr', `needs vectors, and ${NO_VECTORS}`);
  const mode = resolveMode(fields, context);
  if (typeof mode !== 'string') return mode;
  const { query, top, vaults, namespaces, tags, mmr, mmr_lambda: mmrLambda, files } = fields;
  return { ok: true, request: { query, top, vaults, namespaces, tags, mode, mmr, mmrLambda, files } };
}

/** The message a client reads: the field's name, then the problem (docs/retrieval.md#post-search). */
export function describeSearchProblem(failure: SearchRequestFailure): string {
  const valueProblem = failure.kind === 'invalid_value' || failure.kind === 'needs_vectors';
  return valueProblem && failure.field !== undefined ? `${failure.field}: ${failure.problem}` : failure.problem;
}

function readFields(
  given: Record<string, unknown>,
): { readonly ok: true; readonly value: Fields } | SearchRequestFailure {
  const values: Record<string, unknown> = {};
  for (const field of SEARCH_FIELDS) {
    const read: Read<unknown> = FIELDS[field](given[field]);
    if (!read.ok) return refuse('invalid_value', field, read.problem);
    values[field] = read.value;
  }
  // Every field was read by its own reader, whose result type is what `Fields` says for it.
  return { ok: true, value: values as Fields };
}

/**
 * `mode`, or its older spelling `hybrid` (true: hybrid, false: dense); both given must agree. Without
 * either: hybrid where there are vectors, else lexical.
 */
function resolveMode(fields: Fields, context: SearchContext): SearchMode | SearchRequestFailure {
  const hybridGiven = fields.hybrid !== undefined;
  const aliasMode: SearchMode = fields.hybrid === false ? 'dense' : 'hybrid';
  const chosen = fields.mode;
  if (chosen !== undefined && hybridGiven && chosen !== aliasMode) {
    return refuse(
      'invalid_value',
      'mode',
      `"${chosen}" contradicts hybrid: ${String(fields.hybrid)} (hybrid: true is mode "hybrid", false is mode "dense")`,
    );
  }
  if (!context.vectors) {
    if (chosen !== undefined && chosen !== 'lexical') {
      return refuse('needs_vectors', 'mode', `"${chosen}" needs vectors, and ${NO_VECTORS}`);
    }
    if (chosen === undefined && hybridGiven) {
      return refuse('needs_vectors', 'hybrid', `mode "${aliasMode}" needs vectors, and ${NO_VECTORS}`);
    }
    return 'lexical';
  }
  return chosen ?? (hybridGiven ? aliasMode : SEARCH_DEFAULTS.mode);
}

function readQuery(value: unknown): Read<string> {
  if (typeof value !== 'string' || value.trim() === '') return invalid('must be a non-empty string');
  if (exceedsCodePoints(value, QUERY_MAX_CHARACTERS))
    return invalid(`must be at most ${QUERY_MAX_CHARACTERS} characters`);
  if (value.trim().split(/\s+/u).length > QUERY_MAX_TERMS) {
    return invalid(`must be at most ${QUERY_MAX_TERMS} terms (words between spaces)`);
  }
  return { ok: true, value };
}

/** Code points, not UTF-16 units (a character outside the BMP counts once), counted only as far as needed. */
function exceedsCodePoints(text: string, max: number): boolean {
  if (text.length <= max) return false;
  let count = 0;
  for (const _ of text) if (++count > max) return true;
  return false;
}

function readInteger(value: unknown, min: number, max: number, fallback: number): Read<number> {
  if (value === undefined) return { ok: true, value: fallback };
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    return invalid(`must be an integer from ${min} to ${max}`);
  }
  return { ok: true, value };
}

function readFraction(value: unknown, fallback: number): Read<number> {
  if (value === undefined) return { ok: true, value: fallback };
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) {
    return invalid('must be a number from 0 to 1');
  }
  return { ok: true, value };
}

function readBoolean<Fallback extends boolean | undefined>(
  value: unknown,
  fallback: Fallback,
): Read<boolean | Fallback> {
  if (value === undefined) return { ok: true, value: fallback };
  if (typeof value !== 'boolean') return invalid('must be true or false');
  return { ok: true, value };
}

function readMode(value: unknown): Read<SearchMode | undefined> {
  if (value === undefined || isSearchMode(value)) return { ok: true, value };
  return invalid(`must be one of ${SEARCH_MODES.join(', ')}`);
}

/** An absent list is no restriction; an empty one would match nothing and is refused as a likely mistake. */
function readStringList(value: unknown): Read<string[] | undefined> {
  if (value === undefined) return { ok: true, value: undefined };
  if (!Array.isArray(value) || value.length === 0 || !value.every((item) => typeof item === 'string')) {
    return invalid('must be a non-empty list of strings');
  }
  return { ok: true, value: [...new Set(value.map(String))] };
}

/** docs/retrieval.md#tags: a non-empty list of tags, each written as in frontmatter (a leading # is allowed). */
function readTags(value: unknown): Read<string[] | undefined> {
  const list = readStringList(value);
  if (!list.ok || list.value === undefined) return list;
  for (const tag of list.value) {
    const problem = tagProblem(tag);
    if (problem !== undefined) return invalid(problem);
  }
  return list;
}

function isSearchField(key: string): key is SearchField {
  return (SEARCH_FIELDS as readonly string[]).includes(key);
}

function invalid(problem: string): { readonly ok: false; readonly problem: string } {
  return { ok: false, problem };
}

function refuse(kind: SearchRequestProblem, field: SearchField | undefined, problem: string): SearchRequestFailure {
  return { ok: false, kind, field, problem };
}

function plural(list: readonly unknown[]): string {
  return list.length > 1 ? 's' : '';
}
