import { QUERY_MAX_CHARACTERS, QUERY_MAX_TERMS } from '@notegate/rag';
import { JSON_RPC, type McpErrorSpec } from './mcp-error-spec.js';
import { errorFactory } from './protocol-error.js';

// In-band like the SDK's own invalid-params answers: HTTP 200 carrying a JSON-RPC error (docs/protocol.md#tools).
const invalidParams = (description: string): McpErrorSpec => ({
  protocolCode: 'invalid_request',
  status: 200,
  description,
  jsonRpcCode: JSON_RPC.invalidParams,
});

/**
 * Tool calls refused before the tool runs (docs/protocol.md#tools): each a fixed description for the
 * client; what was wrong goes to the audit line.
 */
export const TOOL_ERRORS = {
  // The search API's limits (docs/retrieval.md#query-limits), the very numbers its check applies.
  ERR_QUERY_LIMITS: invalidParams(
    `The query must be 1 to ${QUERY_MAX_CHARACTERS} characters and at most ${QUERY_MAX_TERMS} words`,
  ),
  ERR_NO_VECTORS: invalidParams('The index of this server has no vectors; use mode lexical'),
  ERR_NOTE_PATH: invalidParams('The path must name a markdown file (.md) inside the vault, without hidden folders'),
  ERR_NOTE_TITLE: invalidParams('The title must contain a letter or a digit'),
  ERR_NOTE_TOO_LARGE: invalidParams('The note body exceeds 256 KiB'),
  ERR_INDEX_UNAVAILABLE: {
    protocolCode: 'server_error',
    status: 200,
    description:
      'The index of this server is not available (missing, or built with another model); run notegate-rag index',
    jsonRpcCode: JSON_RPC.internalError,
  },
} as const satisfies Record<string, McpErrorSpec>;

export const toolError = errorFactory(TOOL_ERRORS);
