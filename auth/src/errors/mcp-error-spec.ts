import type { ProtocolErrorSpec } from './protocol-error.js';

/** JSON-RPC error codes the MCP server answers with (JSON-RPC 2.0 §5.1 and the MCP SDK's usage). */
export const JSON_RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  invalidParams: -32602,
  internalError: -32603,
  /** Implementation-defined server error: used for HTTP-level refusals (authentication, authorization). */
  serverError: -32000,
} as const;

/** A registry entry of the MCP server: the OAuth/HTTP side plus the JSON-RPC code of the error body. */
export interface McpErrorSpec extends ProtocolErrorSpec {
  readonly jsonRpcCode: number;
}
