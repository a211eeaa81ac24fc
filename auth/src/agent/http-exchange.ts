import type { FetchLike } from '@modelcontextprotocol/client';
import { isRecord } from '@notegate/kit';
import { readResponseText } from '@notegate/kit/http';
import type { AgentStep } from './agent-errors.js';
import { AgentError, quoted, transportFailed } from './agent-errors.js';

/** How the agent talks HTTP: an injected fetch, and a bound on every request. */
export interface AgentHttp {
  readonly fetch: FetchLike;
  readonly timeoutMs: number;
}

/** Ours: a request that has not been answered (body included) by then is abandoned. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
/** Metadata documents and token responses are a few hundred bytes; anything far larger is not one. */
export const MAX_RESPONSE_BYTES = 64 * 1024;

export interface HttpAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

/**
 * One bounded request: a timeout that covers the body, no redirects (a metadata or token request that
 * is redirected fails rather than following the server elsewhere — RFC 9728 §7.7 SSRF, and a token
 * request must reach the endpoint the issuer's metadata named), and a size limit on the answer.
 */
export async function exchange(step: AgentStep, url: URL, init: RequestInit, http: AgentHttp): Promise<HttpAnswer> {
  const what = `${init.method ?? 'GET'} ${url.href}`;
  try {
    const response = await http.fetch(url, {
      ...init,
      redirect: 'manual',
      signal: AbortSignal.timeout(http.timeoutMs),
    });
    await refuseRedirect(step, what, response);
    const text = await readResponseText(response, MAX_RESPONSE_BYTES);
    if (text === null) {
      throw transportFailed(step, 'response_too_large', `${what} answered more than ${MAX_RESPONSE_BYTES} bytes`);
    }
    return { status: response.status, headers: response.headers, text };
  } catch (err) {
    throw asTransportError(step, what, err, http.timeoutMs);
  }
}

/** Redirects are never followed: a 3xx answer fails the step (its body is discarded). */
export async function refuseRedirect(step: AgentStep, what: string, response: Response): Promise<void> {
  if (response.status < 300 || response.status >= 400) return;
  await response.body?.cancel();
  const location = response.headers.get('location') ?? '(no Location)';
  throw transportFailed(step, 'redirect_refused', `${what} answered ${response.status} to ${quoted(location)}`);
}

/** Maps what fetch throws (timeouts, refused connections) to a transport failure naming the request. */
function asTransportError(step: AgentStep, what: string, err: unknown, timeoutMs: number): Error {
  if (err instanceof AgentError) return err;
  if (err instanceof Error && err.name === 'TimeoutError') {
    return transportFailed(step, 'timeout', `${what} got no complete answer within ${timeoutMs} ms`);
  }
  return transportFailed(step, 'connection_failed', `${what} failed: ${causeOf(err)}`);
}

function causeOf(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause: unknown = err.cause;
  if (cause instanceof Error) {
    const code = 'code' in cause && typeof cause.code === 'string' ? cause.code : undefined;
    return code ?? cause.message;
  }
  return err.message;
}

/** RFC 8414 §3.2, RFC 9728 §3.2, RFC 6749 §5.1: the documents are application/json. */
function isJsonResponse(headers: Headers): boolean {
  const type = (headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/** The answer parsed as a JSON object, or undefined when it is not JSON or not an object. */
export function jsonObjectOf(answer: HttpAnswer): Record<string, unknown> | undefined {
  if (!isJsonResponse(answer.headers)) return undefined;
  try {
    const value: unknown = JSON.parse(answer.text);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
