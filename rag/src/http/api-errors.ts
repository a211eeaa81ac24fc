/**
 * The search API's errors: a stable `error` code, its HTTP status, and for
 * server failures a fixed message (the detail goes to the server log only).
 * Body on the wire: `{ "error": code, "message": text }` (docs/retrieval.md#post-search).
 */
const API_ERRORS = {
  invalid_json: { status: 400, message: 'the request body must be a JSON object' },
  unknown_field: { status: 400, message: 'unknown field' },
  invalid_field: { status: 400, message: 'invalid field' },
  unknown_vault: { status: 400, message: 'unknown vault' },
  forbidden_host: { status: 403, message: 'the Host header must name this server by a loopback name or its address' },
  forbidden_origin: { status: 403, message: 'cross-origin requests are refused (Origin must be a loopback origin)' },
  not_found: { status: 404, message: 'no such endpoint (GET /, GET /health, GET /filters, POST /search)' },
  method_not_allowed: { status: 405, message: 'method not allowed' },
  body_too_large: { status: 413, message: 'the request body exceeds 65536 bytes' },
  index_unavailable: { status: 500, message: 'the index is not available; GET /health says why' },
  index_missing: {
    status: 503,
    message: "there is no index yet: run 'notegate-rag index' (or serve with --watch, which builds it)",
  },
  model_unavailable: { status: 500, message: 'the embedding model is not available; GET /health says why' },
  search_failed: { status: 500, message: 'the search failed; the server log has the details' },
  server_busy: { status: 503, message: 'too many connections; retry later' },
} as const;

export type ApiErrorCode = keyof typeof API_ERRORS;

export class ApiError extends Error {
  readonly status: number;

  /** `message` replaces the registry's text for client errors (it names the field); server errors keep theirs. */
  constructor(
    readonly code: ApiErrorCode,
    message?: string,
  ) {
    const entry = API_ERRORS[code];
    super(entry.status >= 500 || message === undefined ? entry.message : message);
    this.name = 'ApiError';
    this.status = entry.status;
  }

  get body(): { error: ApiErrorCode; message: string } {
    return { error: this.code, message: this.message };
  }
}
