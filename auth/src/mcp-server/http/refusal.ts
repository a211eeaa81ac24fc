import { BEARER_ERRORS } from '../../errors/bearer-errors.js';
import { JSON_RPC } from '../../errors/mcp-error-spec.js';
import { MCP_REQUEST_ERRORS } from '../../errors/mcp-request-errors.js';
import { isErrorOf, type ProtocolError } from '../../errors/protocol-error.js';
import { TOOL_ERRORS } from '../../errors/tool-errors.js';
import type { RpcMessage } from '../request/rpc-message.js';

/** What the HTTP layer writes for a refused request. */
export interface RefusalResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
}

export interface RefusalContext {
  /** The parsed message, when the body was read and was JSON-RPC. */
  readonly message: RpcMessage | undefined;
  /** The scope this call needs, for a 403 challenge (tools/call of a known tool). */
  readonly scope: string | undefined;
  /** Every scope of the server, space-separated, for a 401 challenge. */
  readonly serverScope: string;
  readonly metadataUrl: string;
}

/**
 * docs/protocol.md#challenges-and-error-bodies: 401/403 carry a Bearer challenge with
 * resource_metadata; a token-less 401 has no error parameter (RFC 6750 §3.1);
 * every 401 names all the server's scopes (RFC 6750 §3: what a client needs to
 * list and call its tools); a 403 names the scope the call needs. A
 * JSON-RPC request gets a JSON-RPC error echoing its id with data.error = the
 * OAuth code; anything else gets {error, error_description}.
 */
export function refusalResponse(error: ProtocolError, context: RefusalContext): RefusalResponse {
  const headers: Record<string, string> = {};
  if (isBearerError(error)) headers['WWW-Authenticate'] = bearerChallenge(error, context);
  if (error.status === 405) headers.Allow = 'POST';
  const oauth = {
    ...(error.protocolCode !== null && { error: error.protocolCode }),
    error_description: error.description,
  };
  const id = context.message?.id;
  if (id === undefined) return { status: error.status, headers, body: oauth };
  return {
    status: error.status,
    headers,
    body: { jsonrpc: '2.0', id, error: { code: jsonRpcCodeOf(error), message: error.description, data: oauth } },
  };
}

/** RFC 6750 §3 / RFC 9728 §5.1 challenge; every value is a fixed text, a scope-token list or our URL. */
function bearerChallenge(error: ProtocolError, context: RefusalContext): string {
  const params: string[] = [];
  if (error.protocolCode !== null) params.push(`error="${error.protocolCode}"`);
  const scope = error.status === 401 ? context.serverScope : context.scope;
  if (scope !== undefined && scope !== '') params.push(`scope="${scope}"`);
  params.push(`resource_metadata="${context.metadataUrl}"`);
  if (error.protocolCode !== null) params.push(`error_description="${error.description}"`);
  return `Bearer ${params.join(', ')}`;
}

/** Bearer refusals (401, 403 insufficient_scope) carry a challenge; an Origin 403 is not about the token. */
export function isBearerError(error: ProtocolError): boolean {
  return isErrorOf(BEARER_ERRORS, error);
}

function jsonRpcCodeOf(error: ProtocolError): number {
  if (isErrorOf(BEARER_ERRORS, error) || isErrorOf(MCP_REQUEST_ERRORS, error) || isErrorOf(TOOL_ERRORS, error)) {
    return error.spec.jsonRpcCode;
  }
  return JSON_RPC.internalError;
}
