import { QUERY_MAX_CHARACTERS, QUERY_MAX_TERMS } from '../search/search-request.js';

/**
 * The notes tools' fixed texts (docs/protocol.md#tools), one registry for both servers that serve them:
 * refusals, decided before a tool runs, and failures while it runs. What was wrong goes to the server's
 * log or audit line, never to the client. The protected notes server answers a refusal as a JSON-RPC
 * error, the local stdio server as a tool error; both with these words.
 */
export const TOOL_REFUSALS = {
  ERR_INVALID_ARGUMENTS: 'The tool arguments do not match the tool input schema',
  // The search API's limits (docs/retrieval.md#query-limits), the very numbers its check applies.
  ERR_QUERY_LIMITS: `The query must be 1 to ${QUERY_MAX_CHARACTERS} characters and at most ${QUERY_MAX_TERMS} words`,
  ERR_NO_VECTORS: 'The index of this server has no vectors; use mode lexical',
  ERR_NOTE_PATH: 'The path must name a markdown file (.md) inside the vault, without hidden folders',
  ERR_NOTE_TITLE: 'The title must contain a letter or a digit',
  ERR_NOTE_TOO_LARGE: 'The note body exceeds 256 KiB',
  ERR_UNKNOWN_VAULT: 'The vault is not one of the vaults of this server',
  ERR_NOTE_MISSING: 'There is no note at that path in that vault',
  ERR_LINE_RANGE: 'The line range is outside the note',
  ERR_NOT_TEXT: 'The note is not UTF-8 text of at most 8 MiB',
  ERR_INDEX_UNAVAILABLE:
    'The index of this server is not available (missing, or built with another model); run notegate-rag index',
} as const;

export type ToolRefusalCode = keyof typeof TOOL_REFUSALS;

/** A call the tool refuses: the fixed text's code, and what was wrong (for the log or audit line only). */
export interface ToolRefusal {
  readonly code: ToolRefusalCode;
  readonly detail: string;
}

/** What screening makes of a call's arguments: a refusal, or what the run needs. */
export type ToolPreparation<Ready> = { readonly refused: ToolRefusal } | { readonly ready: Ready };

export const TOOL_FAILURES = {
  ERR_MODEL_UNAVAILABLE: 'The embedding model is not available; search with mode lexical',
  ERR_NOTE_NOT_WRITTEN: 'The note could not be written; nothing was changed',
  ERR_NOTE_PLACE: TOOL_REFUSALS.ERR_NOTE_PATH,
  ERR_TOOL_FAULT: 'The tool failed; the server logged the cause',
} as const;

/**
 * A failure while a tool runs, answered as a tool result with `isError` and the fixed text; `cause`
 * (the exception) goes to the server's log.
 */
export class ToolFailure extends Error {
  readonly publicMessage: string;

  constructor(
    readonly code: keyof typeof TOOL_FAILURES,
    override readonly cause?: unknown,
  ) {
    super(TOOL_FAILURES[code]);
    this.name = 'ToolFailure';
    this.publicMessage = TOOL_FAILURES[code];
  }
}
