import type { FetchLike } from '@modelcontextprotocol/client';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
} from '@modelcontextprotocol/client';
import { agentClientInfo } from './client-info.js';
import { DEFAULT_REQUEST_TIMEOUT_MS, exchange } from './http-exchange.js';
import type { McpOperation } from './mcp-call.js';
import { challengeError } from './mcp-failure.js';

/** What the other server answered to the replayed token (`--steal-token`). */
export interface ReplayReport {
  readonly target: string;
  readonly status: number;
  readonly www_authenticate: string | null;
  /** The OAuth error of the challenge (`invalid_token` when the audience check works). */
  readonly error: string | null;
  /** The answer's body: parsed JSON, or the text. */
  readonly body: unknown;
  /** True when the server served the request with a token minted for another resource. */
  readonly accepted: boolean;
}

const PROTOCOL_VERSION = '2026-07-28';

/**
 * `--steal-token`: sends the same token, unchanged, in the same request (a raw 2026-07-28 POST,
 * so the report shows exactly what came back) to a server it was NOT minted for. This is the one
 * deliberate exception to "the token goes only to its resource": it exists to show the audience check.
 */
export async function replayToken(options: {
  readonly target: string;
  readonly accessToken: string;
  readonly operation: McpOperation;
  readonly fetch?: FetchLike;
  readonly timeoutMs?: number;
}): Promise<ReplayReport> {
  const { method, params } = requestOf(options.operation);
  const meta = {
    [PROTOCOL_VERSION_META_KEY]: PROTOCOL_VERSION,
    [CLIENT_INFO_META_KEY]: agentClientInfo(),
    [CLIENT_CAPABILITIES_META_KEY]: {},
  };
  const headers: Record<string, string> = {
    authorization: `Bearer ${options.accessToken}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': PROTOCOL_VERSION,
    'mcp-method': method,
    ...(options.operation.kind === 'call_tool' && { 'mcp-name': options.operation.name }),
  };
  const answer = await exchange(
    'steal_token',
    new URL(options.target),
    {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: meta } }),
    },
    { fetch: options.fetch ?? fetch, timeoutMs: options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS },
  );
  const wwwAuthenticate = answer.headers.get('www-authenticate');
  return {
    target: options.target,
    status: answer.status,
    www_authenticate: wwwAuthenticate,
    error: challengeError(wwwAuthenticate) ?? null,
    body: parseOrText(answer.text),
    accepted: answer.status >= 200 && answer.status < 300,
  };
}

function requestOf(operation: McpOperation): { method: string; params: Record<string, unknown> } {
  if (operation.kind === 'list_tools') return { method: 'tools/list', params: {} };
  return { method: 'tools/call', params: { name: operation.name, arguments: operation.arguments } };
}

function parseOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
