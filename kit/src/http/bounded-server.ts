import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { sendJsonAndClose } from './respond.js';

/** docs/security.md#security-properties: a client that has not sent its whole request by then is cut (408). */
export const REQUEST_TIMEOUT_MS = 30_000;
/** docs/security.md#security-properties: connections served at once, unless `--max-connections` says otherwise. */
export const DEFAULT_MAX_CONNECTIONS = 512;
/**
 * Connections past the cap that are still accepted, so that their request can be answered with a 503
 * rather than a silent close; past these, new connections are closed at once (Node's maxConnections).
 */
export const BUSY_HEADROOM_CONNECTIONS = 64;
/** Longest pause between two of Node's checks of the header and request timeouts. */
const MAX_CHECK_INTERVAL_MS = 1_000;
/** Node's default idle time of a kept-alive connection, kept unless the request bound is shorter. */
const KEEP_ALIVE_TIMEOUT_MS = 5_000;

export interface ServerLimits {
  /** Connections served at once; further ones get 503 (docs/security.md#security-properties). */
  readonly maxConnections: number;
  /** Time a client has to send its complete request, headers and body. */
  readonly requestTimeoutMs: number;
}

/** The node:http settings that make a request bound hold. */
export interface HttpTimeouts {
  readonly headersTimeout: number;
  readonly requestTimeout: number;
  readonly keepAliveTimeout: number;
  readonly connectionsCheckingInterval: number;
}

/**
 * Node enforces `headersTimeout` and `requestTimeout` only when its connection check runs, every
 * `connectionsCheckingInterval` (30 s by default, which made a 30 s bound really 30 to 60 s). Checking
 * every tenth of the bound (at most every second) cuts a client at most that much after the bound:
 * 31 s for the 30 s default. A kept-alive connection that stays idle after a response is closed by
 * `keepAliveTimeout` (Node adds a second to it), well inside the bound.
 */
export function httpTimeouts(requestTimeoutMs: number): HttpTimeouts {
  return {
    headersTimeout: requestTimeoutMs,
    requestTimeout: requestTimeoutMs,
    keepAliveTimeout: Math.min(KEEP_ALIVE_TIMEOUT_MS, Math.ceil(requestTimeoutMs / 2)),
    connectionsCheckingInterval: Math.max(1, Math.min(MAX_CHECK_INTERVAL_MS, Math.floor(requestTimeoutMs / 10))),
  };
}

export interface BoundedServerOptions {
  /** Defaults: DEFAULT_MAX_CONNECTIONS and REQUEST_TIMEOUT_MS. */
  readonly limits?: Partial<ServerLimits>;
  /** The JSON body of the 503 a request over the connection cap gets (each server's own error shape). */
  readonly busyBody: unknown;
}

/**
 * A node:http server whose clients are bounded (docs/security.md#security-properties): a client that has
 * not sent its complete request within the request bound gets 408 and is disconnected, and a connection
 * beyond `maxConnections` open ones gets 503 with `Connection: close` for its request instead of the
 * handler. Every server of the project is made here, so the bounds hold the same way everywhere.
 */
export function createBoundedServer(handler: RequestListener, options: BoundedServerOptions): Server {
  const maxConnections = options.limits?.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  const timeouts = httpTimeouts(options.limits?.requestTimeoutMs ?? REQUEST_TIMEOUT_MS);
  const overCap = new WeakSet<Socket>();
  let open = 0;
  const server = createServer(
    { connectionsCheckingInterval: timeouts.connectionsCheckingInterval },
    (req: IncomingMessage, res: ServerResponse) => {
      if (!overCap.has(req.socket)) return handler(req, res);
      sendJsonAndClose(res, 503, options.busyBody, { 'Retry-After': '1' });
    },
  );
  server.headersTimeout = timeouts.headersTimeout;
  server.requestTimeout = timeouts.requestTimeout;
  server.keepAliveTimeout = timeouts.keepAliveTimeout;
  server.maxConnections = maxConnections + BUSY_HEADROOM_CONNECTIONS;
  server.on('connection', (socket: Socket) => {
    open += 1;
    // Decided once per connection: one accepted over the cap is answered 503 and closed, never served.
    if (open > maxConnections) overCap.add(socket);
    socket.once('close', () => {
      open -= 1;
    });
  });
  return server;
}
