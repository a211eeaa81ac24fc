import type { FetchLike } from '@modelcontextprotocol/client';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { sameResource } from '../oauth/identifier.js';
import { AgentError } from './agent-errors.js';
import { agentClientInfo } from './client-info.js';
import { DEFAULT_REQUEST_TIMEOUT_MS, refuseRedirect } from './http-exchange.js';
import type { RecordedRefusal } from './mcp-failure.js';
import { mcpFailure } from './mcp-failure.js';
import type { AccessToken } from './token-request.js';

/** What the agent asks the server: the tool list, or one tool call. */
export type McpOperation =
  | { readonly kind: 'list_tools' }
  | { readonly kind: 'call_tool'; readonly name: string; readonly arguments: Readonly<Record<string, unknown>> };

export interface McpCallOptions {
  readonly token: Pick<AccessToken, 'accessToken' | 'resource'>;
  readonly operation: McpOperation;
  readonly fetch?: FetchLike;
  /** Bound of the connect handshake and of the request, each. */
  readonly timeoutMs?: number;
}

export interface McpCallResult {
  /** The MCP result as the server sent it (ListToolsResult or CallToolResult). */
  readonly result: Record<string, unknown>;
  /** `2026-07-28`, or `2025-11-25` when the server only speaks that. */
  readonly protocolVersion: string | undefined;
}

/**
 * Agent step 6 through the official SDK client: `Authorization: Bearer` on every request, revision
 * 2026-07-28 negotiated with `server/discover` and falling back to the 2025-11-25 `initialize`
 * handshake when the server answers as a legacy server (the SDK's `auto` mode). The token goes only to
 * the resource it was minted for: every request the transport makes is checked against it, redirects
 * are refused, and a 403 insufficient_scope is reported rather than answered with a new authorization.
 */
export async function callMcpServer(options: McpCallOptions): Promise<McpCallResult> {
  const timeout = options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const target = options.token.resource;
  let lastRefusal: RecordedRefusal | undefined;
  const transport = new StreamableHTTPClientTransport(new URL(target), {
    authProvider: { token: async () => options.token.accessToken },
    fetch: onlyTo(target, options.fetch ?? fetch, (refusal) => {
      lastRefusal = refusal;
    }),
    requestInit: { redirect: 'manual' },
    onInsufficientScope: 'throw',
  });
  const client = new Client(agentClientInfo(), {
    versionNegotiation: { mode: 'auto', probe: { timeoutMs: timeout } },
  });
  try {
    await client.connect(transport, { timeout });
    const result =
      options.operation.kind === 'list_tools'
        ? await client.listTools(undefined, { timeout, cacheMode: 'bypass' })
        : await client.callTool(
            { name: options.operation.name, arguments: { ...options.operation.arguments } },
            { timeout },
          );
    return { result: { ...result }, protocolVersion: client.getNegotiatedProtocolVersion() };
  } catch (err) {
    throw mcpFailure(err, lastRefusal, target);
  } finally {
    await client.close().catch(() => undefined);
  }
}

/**
 * A fetch that sends only to `resource` (the token's audience), refuses redirects (the SDK passes
 * `redirect: 'manual'` through) and records every HTTP error answer, so a refusal can be reported with
 * its status, challenge and body.
 */
export function onlyTo(resource: string, base: FetchLike, record: (refusal: RecordedRefusal) => void): FetchLike {
  return async (url, init) => {
    const href = typeof url === 'string' ? url : url.href;
    if (!sameResource(href, resource)) {
      throw new AgentError('mcp_call', 'token_destination_refused', 'failure', `refused to send the token to ${href}`);
    }
    const response = await base(url, init);
    await refuseRedirect('mcp_call', `${init?.method ?? 'GET'} ${href}`, response);
    if (response.status >= 400) {
      record({
        status: response.status,
        wwwAuthenticate: response.headers.get('www-authenticate'),
        body: await response.clone().text(),
      });
    }
    return response;
  };
}
