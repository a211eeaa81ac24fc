import {
  InsufficientScopeError,
  ProtocolError as JsonRpcError,
  SdkError,
  SdkErrorCode,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { describeThrown, isRecord } from '@notegate/kit';
import { AgentError, authenticationFailed, plain, quoted, refused, transportFailed } from './agent-errors.js';

/** The last HTTP error answer the MCP server gave, as the transport saw it. */
export interface RecordedRefusal {
  readonly status: number;
  readonly wwwAuthenticate: string | null;
  readonly body: string;
}

const STEP = 'mcp_call';

/**
 * Turns what the SDK client threw into one line naming the refusal: a 403 insufficient_scope with the
 * scope the call needs, a 401 with its challenge, a JSON-RPC error with its code, or a transport
 * failure. The raw challenge comes from the recorded answer (the SDK keeps only parts of it).
 */
export function mcpFailure(err: unknown, answer: RecordedRefusal | undefined, target: string): AgentError {
  const own = ownError(err);
  if (own) return own;
  const status = answer ? `HTTP ${answer.status} from ${target}` : `${target}`;
  const challenge = answer?.wwwAuthenticate ? `; WWW-Authenticate: ${plain(answer.wwwAuthenticate)}` : '';
  if (err instanceof InsufficientScopeError) {
    const needed = err.requiredScope === undefined ? 'a scope it does not name' : `scope ${quoted(err.requiredScope)}`;
    return refused(STEP, 'insufficient_scope', `${status}: the call needs ${needed}${challenge}`);
  }
  if (answer?.status === 401 || err instanceof UnauthorizedError) {
    const code = challengeError(answer?.wwwAuthenticate ?? null) ?? 'unauthorized';
    return authenticationFailed(STEP, code, `${status}: the access token was not accepted${challenge}`);
  }
  if (err instanceof JsonRpcError) {
    const code = oauthCodeOf(err.data) ?? `jsonrpc_${err.code}`;
    return refused(STEP, code, `${status}: JSON-RPC error ${err.code} ${quoted(err.message)}`);
  }
  if (answer && answer.status >= 400) {
    const failure = answer.status >= 500 ? transportFailed : refused;
    return failure(STEP, `http_${answer.status}`, `${status}: ${quoted(answer.body)}${challenge}`);
  }
  if (err instanceof SdkError && err.code === SdkErrorCode.RequestTimeout) {
    return transportFailed(STEP, 'timeout', `${target} did not answer in time`);
  }
  return transportFailed(STEP, 'connection_failed', `${target}: ${causeChain(err)}`);
}

/** Our own refusal (the destination guard), possibly wrapped by the SDK as a cause. */
function ownError(err: unknown): AgentError | undefined {
  return causesOf(err).find((cause): cause is AgentError => cause instanceof AgentError);
}

/** RFC 6750 §3: the `error` auth-param of a Bearer challenge. */
export function challengeError(header: string | null): string | undefined {
  const match = header === null ? null : /(?:^|[\s,])error="([a-z_]{1,64})"/.exec(header);
  return match?.[1];
}

/** docs/protocol.md#challenges-and-error-bodies: a refused JSON-RPC request carries the OAuth code in error.data.error. */
function oauthCodeOf(data: unknown): string | undefined {
  return isRecord(data) && typeof data.error === 'string' && /^[a-z_]{1,64}$/.test(data.error) ? data.error : undefined;
}

function causeChain(err: unknown): string {
  const causes = causesOf(err);
  if (causes.length === 0) return describeThrown(err);
  const code = causes.map(systemErrorCode).find((value) => value !== undefined);
  return `${causes.map((cause) => cause.message).join(': ')}${code ? ` (${code})` : ''}`;
}

/** The error and its causes, outermost first (bounded: cause chains can be cyclic). */
function causesOf(err: unknown): Error[] {
  const causes: Error[] = [];
  for (let current: unknown = err; current instanceof Error && causes.length < 5; current = current.cause) {
    causes.push(current);
  }
  return causes;
}

/** ECONNREFUSED and friends, from Node's system errors. */
function systemErrorCode(err: Error): string | undefined {
  return 'code' in err && typeof err.code === 'string' && /^E[A-Z]+$/.test(err.code) ? err.code : undefined;
}
