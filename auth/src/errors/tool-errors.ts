import { TOOL_REFUSALS } from '@notegate/rag';
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
 * Tool calls refused before the tool runs (docs/protocol.md#tools), with the notes tools' own fixed texts
 * (`TOOL_REFUSALS` of @notegate/rag, which the local stdio server answers with too); what was wrong goes
 * to the audit line. A schema mismatch is the request registry's ERR_INVALID_ARGUMENTS.
 */
export const TOOL_ERRORS = {
  ERR_QUERY_LIMITS: invalidParams(TOOL_REFUSALS.ERR_QUERY_LIMITS),
  ERR_NO_VECTORS: invalidParams(TOOL_REFUSALS.ERR_NO_VECTORS),
  ERR_NOTE_PATH: invalidParams(TOOL_REFUSALS.ERR_NOTE_PATH),
  ERR_NOTE_TITLE: invalidParams(TOOL_REFUSALS.ERR_NOTE_TITLE),
  ERR_NOTE_TOO_LARGE: invalidParams(TOOL_REFUSALS.ERR_NOTE_TOO_LARGE),
  ERR_UNKNOWN_VAULT: invalidParams(TOOL_REFUSALS.ERR_UNKNOWN_VAULT),
  ERR_NOTE_MISSING: invalidParams(TOOL_REFUSALS.ERR_NOTE_MISSING),
  ERR_LINE_RANGE: invalidParams(TOOL_REFUSALS.ERR_LINE_RANGE),
  ERR_NOT_TEXT: invalidParams(TOOL_REFUSALS.ERR_NOT_TEXT),
  ERR_INDEX_UNAVAILABLE: {
    protocolCode: 'server_error',
    status: 200,
    description: TOOL_REFUSALS.ERR_INDEX_UNAVAILABLE,
    jsonRpcCode: JSON_RPC.internalError,
  },
} as const satisfies Record<string, McpErrorSpec>;

export const toolError = errorFactory(TOOL_ERRORS);
