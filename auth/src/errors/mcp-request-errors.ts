import { JSON_RPC, type McpErrorSpec } from './mcp-error-spec.js';
import { errorFactory } from './protocol-error.js';

const invalidRequest = (status: number, description: string, jsonRpcCode: number): McpErrorSpec => ({
  protocolCode: 'invalid_request',
  status,
  description,
  jsonRpcCode,
});

/** Refusals of the MCP endpoint that are not about the bearer token: limits, shape, routing. */
export const MCP_REQUEST_ERRORS = {
  // MCP Streamable HTTP (2025-11-25 and 2026-07-28): an invalid Origin MUST get 403 (DNS-rebinding defence).
  ERR_ORIGIN: invalidRequest(403, 'Origin not allowed', JSON_RPC.serverError),
  ERR_METHOD_NOT_ALLOWED: invalidRequest(405, 'Only POST is accepted on the MCP endpoint', JSON_RPC.serverError),
  ERR_BODY_TOO_LARGE: invalidRequest(413, 'The request body exceeds 1 MiB', JSON_RPC.invalidRequest),
  ERR_CONTENT_TYPE: invalidRequest(415, 'Content-Type must be application/json', JSON_RPC.serverError),
  ERR_ACCEPT: invalidRequest(406, 'Accept must list both application/json and text/event-stream', JSON_RPC.serverError),
  ERR_NOT_JSON: invalidRequest(400, 'The request body is not valid JSON', JSON_RPC.parseError),
  ERR_TOO_DEEP: invalidRequest(400, 'The request body nests JSON more than 64 levels deep', JSON_RPC.parseError),
  ERR_NOT_JSON_RPC: invalidRequest(
    400,
    'The request body is not a JSON-RPC request or notification',
    JSON_RPC.invalidRequest,
  ),
  ERR_BATCH: invalidRequest(400, 'JSON-RPC batches are not accepted', JSON_RPC.invalidRequest),
  ERR_TOOL_NAME_MISSING: invalidRequest(400, 'A tools/call request must name a tool', JSON_RPC.invalidParams),
  ERR_UNKNOWN_TOOL: invalidRequest(400, 'Unknown tool', JSON_RPC.invalidParams),
  // In-band like the SDK's own invalid-params answers: HTTP 200 carrying a JSON-RPC error.
  ERR_INVALID_ARGUMENTS: invalidRequest(
    200,
    'The tool arguments do not match the tool input schema',
    JSON_RPC.invalidParams,
  ),
  ERR_SERVER_FAULT: {
    protocolCode: 'server_error',
    status: 500,
    description: 'Internal server error',
    jsonRpcCode: JSON_RPC.internalError,
  },
} as const satisfies Record<string, McpErrorSpec>;

export const requestError = errorFactory(MCP_REQUEST_ERRORS);
