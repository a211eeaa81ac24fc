import { existsSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import path from 'node:path';
import {
  BodyTooLargeError,
  createBoundedServer,
  type Handler,
  pathOf,
  type RouteTable,
  readBody,
  routeRequests,
  type ServerLimits,
  sendJson,
  sendJsonAndClose,
} from '@notegate/kit/http';
import { hasVectors } from '../config/models.js';
import { RagError } from '../errors/rag-error.js';
import { SEARCH_MODES, type SearchHit, type SearchResult } from '../search/hybrid-search.js';
import type { SearchIndex } from '../search/search-index.js';
import { checkSearchRequest, describeSearchProblem, type SearchRequestProblem } from '../search/search-request.js';
import { hitSnippet, termPatterns } from '../search/snippet.js';
import { ApiError, type ApiErrorCode } from './api-errors.js';
import { healthBody } from './health.js';
import { allowedHostnames, screenRequest } from './request-screen.js';
import { pageFiles, sendPageFile } from './search-page.js';

/** docs/retrieval.md#post-search: request bodies over 64 KiB get 413. */
const BODY_LIMIT_BYTES = 64 * 1024;

/** docs/retrieval.md#post-search: the error code of each problem of a search request. */
const REQUEST_ERRORS: Readonly<Record<SearchRequestProblem, ApiErrorCode>> = {
  not_an_object: 'invalid_json',
  unknown_field: 'unknown_field',
  unknown_vault: 'unknown_vault',
  invalid_value: 'invalid_field',
  needs_vectors: 'invalid_field',
};

export interface SearchServerDeps {
  /** The index and its query model, opened by the caller (started after the server binds). */
  readonly index: SearchIndex;
  /** The index path as /health reports it (docs/retrieval.md#get-health): relative unless asked otherwise. */
  readonly indexPath: string;
  /** Vault ids of the config: the only ones a request may name, and the default search scope. */
  readonly vaults: readonly string[];
  /**
   * The folder of each vault, which GET /filters tells the search page so that its links can open a
   * note in an editor (docs/retrieval.md#search-page); absent: the page shows no such links.
   */
  readonly vaultFolders?: ReadonlyMap<string, string>;
  /** The address the server binds to (allowed in `Host` besides loopback names). */
  readonly bindHost: string;
  /** Where failures are written with their details (stderr). */
  readonly log: (line: string) => void;
  /** The version /health reports (the package's). */
  readonly version: string;
  /** Connection cap and request bound (docs/security.md#security-properties); tests shorten the bound. */
  readonly limits?: Partial<ServerLimits>;
}

/** The composition root of `notegate-rag serve`: routes, screening, and error translation. */
export function createSearchServer(deps: SearchServerDeps): Server {
  const hostnames = allowedHostnames(deps.bindHost);
  const page = [...pageFiles()].map(([route, file]): [string, Record<string, Handler>] => [
    route,
    { GET: (_req, res) => sendPageFile(res, file) },
  ]);
  const routes: RouteTable = new Map<string, Record<string, Handler>>([
    ['/health', { GET: (_req, res) => health(res, deps) }],
    ['/search', { POST: (req, res) => search(req, res, deps) }],
    ['/filters', { GET: (_req, res) => filters(res, deps) }],
    ...page,
  ]);
  const route = routeRequests(routes, {
    notFound: (_req, res) => sendJson(res, 404, new ApiError('not_found').body),
    methodNotAllowed: (_req, res, allow) =>
      sendJsonAndClose(res, 405, new ApiError('method_not_allowed', `allowed: ${allow}`).body),
    failed: (req, res, err) => {
      if (err instanceof BodyTooLargeError) return sendJsonAndClose(res, 413, new ApiError('body_too_large').body);
      const failure = err instanceof ApiError ? err : new ApiError('search_failed');
      // The path, not the URL: the query string is the client's and is never logged. No index yet is an
      // expected state that /health reports, not a failure.
      if (failure.status >= 500 && failure.code !== 'index_missing') {
        deps.log(`${req.method} ${pathOf(req.url)}: ${describe(err)}`);
      }
      sendJson(res, failure.status, failure.body);
    },
  });
  const handler: Handler = (req, res) => {
    const refused = screenRequest({ host: req.headers.host, origin: req.headers.origin }, hostnames);
    if (refused) return sendJsonAndClose(res, 403, new ApiError(refused).body);
    route(req, res);
  };
  return createBoundedServer(handler, { limits: deps.limits, busyBody: new ApiError('server_busy').body });
}

function health(res: ServerResponse, deps: SearchServerDeps): void {
  const { snapshots } = deps.index;
  snapshots.check();
  const { status, body } = healthBody({
    version: deps.version,
    modelId: deps.index.model.id,
    model: deps.index.modelState,
    index: snapshots.current,
    stale: snapshots.stale,
    indexPath: deps.indexPath,
    configuredVaults: deps.vaults,
  });
  sendJson(res, status, body, { 'Cache-Control': 'no-store' });
}

/**
 * docs/retrieval.md#get-filters: what a search can be narrowed to, for the search page: the configured
 * vaults (with their folders, when given), their folders' namespaces, every tag, and the modes.
 */
function filters(res: ServerResponse, deps: SearchServerDeps): void {
  const { snapshots } = deps.index;
  snapshots.check();
  const state = snapshots.current;
  if (state.kind !== 'ready') throw translate(new RagError('ERR_INDEX_UNAVAILABLE', describeState(state)), deps.log);
  const facets = state.snapshot.facets();
  const vaults = deps.vaults.map((id) => {
    const folder = deps.vaultFolders?.get(id);
    return { id, folder: folder ?? null, obsidian: folder !== undefined && existsSync(path.join(folder, '.obsidian')) };
  });
  sendJson(
    res,
    200,
    {
      vaults,
      namespaces: facets.namespaces.filter((n) => deps.vaults.includes(n.vault)),
      tags: facets.tags,
      modes: hasVectors(deps.index.model) ? SEARCH_MODES : ['lexical'],
    },
    { 'Cache-Control': 'no-store' },
  );
}

function describeState(state: { readonly kind: string; readonly reason?: string }): string {
  return state.reason ?? `the index is ${state.kind}`;
}

async function search(req: IncomingMessage, res: ServerResponse, deps: SearchServerDeps): Promise<void> {
  const raw = await readBody(req, BODY_LIMIT_BYTES);
  const checked = checkSearchRequest(parseJson(raw), { vaults: deps.vaults, vectors: hasVectors(deps.index.model) });
  if (!checked.ok) throw new ApiError(REQUEST_ERRORS[checked.kind], describeSearchProblem(checked));
  const { request } = checked;
  let result: SearchResult;
  try {
    result = await deps.index.search({ ...request, vaults: request.vaults ?? deps.vaults });
  } catch (err) {
    throw translate(err, deps.log);
  }
  const tiers = result.lexicalTiers.length > 0 ? result.lexicalTiers.join('+') : 'none';
  const notice = result.hits.length === 0 ? emptyIndexNotice(deps.index) : undefined;
  // docs/retrieval.md#post-search: the word tier's ranking in memory or in SQLite, for operators and benchmarks.
  const scoring = result.wordScoring ? { 'X-Notegate-Word-Scoring': result.wordScoring } : {};
  sendJson(
    res,
    200,
    { ...searchJson(result, request.query), ...(notice && { notice }) },
    { 'X-Notegate-Lexical': tiers, ...scoring },
  );
}

/**
 * docs/retrieval.md#post-search: no hits from an index that holds no chunk says so, so that an empty
 * index is not taken for a query that matched nothing.
 */
function emptyIndexNotice(index: SearchIndex): string | undefined {
  const state = index.snapshots.current;
  if (state.kind !== 'ready' || state.snapshot.chunks > 0) return undefined;
  return "the index holds no notes yet: the vaults have no markdown files, or 'notegate-rag index' has not indexed them";
}

/** The index's failures as API errors (the details go to the log only). */
function translate(err: unknown, log: (line: string) => void): unknown {
  if (!(err instanceof RagError)) return err;
  if (err.code === 'ERR_MODEL_UNAVAILABLE') {
    log(`model: ${describe(err)}`);
    return new ApiError('model_unavailable');
  }
  // No index yet is an expected state of a fresh install (503, what to run), not a server failure.
  if (err.code === 'ERR_INDEX_MISSING') return new ApiError('index_missing');
  if (err.code === 'ERR_INDEX_UNAVAILABLE') {
    log(`search refused: ${describe(err)}`);
    return new ApiError('index_unavailable');
  }
  return err;
}

function parseJson(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw new ApiError('invalid_json', 'the request body is not valid JSON');
  }
}

/** The response body of docs/retrieval.md#post-search (also `notegate-rag search --json`): hits and corrections. */
export function searchJson(result: Pick<SearchResult, 'hits' | 'corrections'>, query: string): Record<string, unknown> {
  const patterns = termPatterns(query, result.corrections);
  return { hits: result.hits.map((hit) => hitJson(hit, patterns)), corrections: result.corrections };
}

/** The hit fields of docs/retrieval.md#post-search, with the component ranks. */
function hitJson(hit: SearchHit, patterns: readonly RegExp[]): Record<string, unknown> {
  const snippet = hitSnippet(hit.text, patterns);
  return {
    vault: hit.vault,
    path: hit.path,
    namespace: hit.namespace,
    title: hit.title,
    heading: hit.heading,
    line_start: hit.lineStart,
    line_end: hit.lineEnd,
    text: hit.text,
    snippet: snippet.text,
    marks: snippet.marks,
    score: hit.score,
    dense_rank: hit.denseRank ?? null,
    lexical_rank: hit.lexicalRank ?? null,
  };
}

function describe(err: unknown): string {
  if (err instanceof RagError) return `${err.code}: ${err.message}`;
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}
