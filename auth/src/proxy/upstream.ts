import type { FetchLike, JSONRPCMessage } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { onlyTo } from '../agent/mcp-call.js';

/** Where the upstream's bearer tokens come from (a TokenKeeper). */
export interface BearerSource {
  bearer(): Promise<string>;
  reject(accessToken: string): void;
}

export interface UpstreamOptions {
  /** The protected MCP server's resource URI: the only URL requests go to. */
  readonly resource: string;
  readonly tokens: BearerSource;
  readonly fetch?: FetchLike;
  /** Every JSON-RPC message the server sends: answers, and its own requests and notifications. */
  readonly onMessage: (message: JSONRPCMessage) => void;
  /** Out-of-band transport errors (an unparsable SSE event, a lost GET stream); reporting only. */
  readonly onError: (err: Error) => void;
}

export interface SendOptions {
  /** Aborts this request (its POST and its response stream). */
  readonly signal?: AbortSignal;
  /** The response stream ended; the relay checks whether the answer came. */
  readonly onStreamEnd?: () => void;
}

/**
 * The HTTP leg of the proxy: the official SDK's Streamable HTTP client transport used as a pure
 * transport (no Client in front of it), so messages cross unchanged while the transport does what the
 * protocol asks of a client — the MCP-Protocol-Version, Mcp-Method and Mcp-Name headers derived from
 * each 2026-07-28 request, the 2025-11-25 session and version headers, JSON and SSE answers. We add
 * the bearer token on every request, one new token and one retry after a 401 (the transport never
 * retries twice), a 403 insufficient_scope raised rather than answered with a new authorization, no
 * redirects, and no request to any other URL than the resource (the token's audience).
 */
export class Upstream {
  readonly #transport: StreamableHTTPClientTransport;

  constructor(options: UpstreamOptions) {
    // Which token each answer was for: a 401 retires that token only, not a newer one.
    const tokenOf = new WeakMap<Response, string>();
    const guarded = onlyTo(options.resource, options.fetch ?? fetch, () => undefined);
    const tracked: FetchLike = async (url, init) => {
      const response = await guarded(url, init);
      const token = bearerOf(init?.headers);
      if (token !== undefined) tokenOf.set(response, token);
      return response;
    };
    this.#transport = new StreamableHTTPClientTransport(new URL(options.resource), {
      authProvider: {
        token: () => options.tokens.bearer(),
        onUnauthorized: async ({ response }) => {
          const token = tokenOf.get(response);
          if (token !== undefined) options.tokens.reject(token);
        },
      },
      fetch: tracked,
      requestInit: { redirect: 'manual' },
      onInsufficientScope: 'throw',
    });
    this.#transport.onmessage = options.onMessage;
    this.#transport.onerror = options.onError;
  }

  start(): Promise<void> {
    return this.#transport.start();
  }

  /** POSTs one message; rejects when the request failed (the answer, if any, comes through onMessage). */
  send(message: JSONRPCMessage, options: SendOptions = {}): Promise<void> {
    return this.#transport.send(message, {
      ...(options.signal && { requestSignal: options.signal }),
      ...(options.onStreamEnd && { onRequestStreamEnd: options.onStreamEnd }),
    });
  }

  /** MCP 2025-11-25: after initialize, every request names the negotiated version in a header. */
  setProtocolVersion(version: string): void {
    this.#transport.setProtocolVersion(version);
  }

  close(): Promise<void> {
    return this.#transport.close();
  }
}

function bearerOf(headers: RequestInit['headers']): string | undefined {
  const value = new Headers(headers).get('authorization');
  return value?.startsWith('Bearer ') ? value.slice('Bearer '.length) : undefined;
}
