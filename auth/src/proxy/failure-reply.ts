import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/client';
import { isJSONRPCErrorResponse, SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';
import { isRecord } from '@notegate/kit';
import { UsageError } from '@notegate/kit/cli';
import { AgentError, authenticationFailed, quoted, refused, transportFailed } from '../agent/agent-errors.js';
import type { RecordedRefusal } from '../agent/mcp-failure.js';
import { mcpFailure } from '../agent/mcp-failure.js';
import { JSON_RPC } from '../errors/mcp-error-spec.js';
import { errorReply } from './client-line.js';

/** What a failure message may say about the proxy's own state. */
export interface FailureContext {
  readonly resource: string;
  /** The scope of the token the proxy holds, if any. */
  readonly tokenScope: string | undefined;
}

/**
 * The answer a client gets when its request could not be relayed (docs/protocol.md#proxy). A JSON-RPC
 * error the server itself sent with an HTTP error status goes back unchanged; anything else becomes a
 * JSON-RPC error whose message is the one-line `<step>: <reason>: <detail>` of the agent, plus what to
 * do about it, and whose data names the reason (`data.error`, as the notes server's refusals do).
 */
export function failureReply(err: unknown, id: RequestId, context: FailureContext): JSONRPCMessage {
  const serverAnswer = jsonRpcErrorIn(err, id);
  if (serverAnswer !== undefined) return serverAnswer;
  return agentErrorReply(id, asAgentError(err, context.resource), context);
}

/** An AgentError as a JSON-RPC error: refusals -32000 (as the notes server's), breakdowns -32603. */
function agentErrorReply(id: RequestId, err: AgentError, context: FailureContext): JSONRPCMessage {
  const code =
    err.failureClass === 'refused' || err.failureClass === 'authentication'
      ? JSON_RPC.serverError
      : JSON_RPC.internalError;
  const advice = adviceFor(err.reason, context);
  return errorReply(id, code, advice === undefined ? err.message : `${err.message}. ${advice}`, {
    error: err.reason,
    step: err.step,
  });
}

/** The failure of the token chain or of the HTTP exchange, classified as the agent classifies it. */
export function asAgentError(err: unknown, resource: string): AgentError {
  if (err instanceof AgentError) return err;
  if (err instanceof UsageError) return refused('protected_resource_metadata', 'scope_required', err.message);
  // The transport has already fetched a new token and retried once: the server refused that one too.
  if (err instanceof SdkHttpError && err.status === 401) {
    return authenticationFailed(
      'mcp_call',
      'invalid_token',
      `${resource} answered 401 to a newly obtained token as well`,
    );
  }
  const malformed = malformedAnswer(err);
  if (malformed !== undefined) {
    return transportFailed('mcp_call', 'malformed_response', `${resource} answered ${malformed}`);
  }
  return mcpFailure(err, refusalOf(err), resource);
}

/** What to do about it, for the reasons a user can fix from the command line. */
function adviceFor(reason: string, context: FailureContext): string | undefined {
  switch (reason) {
    case 'invalid_scope':
      return 'The authorization server does not grant these scopes to this workload for this resource: start notegate proxy with --scope naming the scopes it is granted';
    case 'scope_required':
      return 'Start notegate proxy with --scope';
    case 'insufficient_scope': {
      const held =
        context.tokenScope === undefined ? '' : `The proxy's token carries scope ${quoted(context.tokenScope)}. `;
      return `${held}Start notegate proxy with --scope including the missing scope, if the policy grants it`;
    }
    case 'invalid_token':
      return 'The proxy replaces a refused token once per request and does not retry again';
    case 'issuer_refused':
      return 'Nothing was sent to that issuer; add it with --trusted-issuer only if you trust it';
    default:
      return undefined;
  }
}

/** The server's own JSON-RPC error for this request, carried in the body of an HTTP error answer. */
function jsonRpcErrorIn(err: unknown, id: RequestId): JSONRPCMessage | undefined {
  if (!(err instanceof SdkHttpError)) return undefined;
  const text = textOf(err);
  if (text === undefined) return undefined;
  try {
    const body: unknown = JSON.parse(text);
    return isJSONRPCErrorResponse(body) && body.id === id ? body : undefined;
  } catch {
    return undefined;
  }
}

/** The status and body the SDK error carries, for the agent's classification. */
function refusalOf(err: unknown): RecordedRefusal | undefined {
  if (err instanceof SdkHttpError && typeof err.status === 'number') {
    return { status: err.status, wwwAuthenticate: null, body: textOf(err) ?? '' };
  }
  return undefined;
}

function textOf(err: SdkError): string | undefined {
  const data: unknown = err.data;
  return isRecord(data) && typeof data.text === 'string' ? data.text : undefined;
}

/** What was wrong with an answer that is not JSON, not JSON-RPC (the SDK's schema) or of another type. */
function malformedAnswer(err: unknown): string | undefined {
  if (err instanceof SdkError) {
    if (err.code !== SdkErrorCode.ClientHttpUnexpectedContent) return undefined;
    const data: unknown = err.data;
    const type = isRecord(data) && typeof data.contentType === 'string' ? data.contentType : 'none';
    return `with content type ${quoted(type)}, neither JSON nor an event stream`;
  }
  if (!(err instanceof Error)) return undefined;
  if (err.name === 'SyntaxError') return 'a body that is not JSON';
  if (err.name === 'ZodError') return 'JSON that is not a JSON-RPC message';
  return undefined;
}
