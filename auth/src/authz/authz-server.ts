import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Handler, RouteTable, ServerLimits } from '@notegate/kit/http';
import {
  BodyTooLargeError,
  closeServer,
  createBoundedServer,
  listen,
  readBody,
  routeRequests,
  sendJson,
  sendJsonAndClose,
} from '@notegate/kit/http';
import { TEMPORARILY_UNAVAILABLE, tokenError } from '../errors/token-endpoint-errors.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import { authorizationServerMetadataUrl } from '../oauth/well-known.js';
import { authorizationServerMetadata, JWKS_PATH, TOKEN_PATH } from './metadata.js';
import { ReplayCache } from './replay/replay-cache.js';
import type { ReplayStore } from './replay/replay-store.js';
import type { SigningKeySource } from './signing/signing-key.js';
import { fixedSigningKeys, generateAccessTokenSigningKey, signingKeySet } from './signing/signing-key.js';
import type { TokenEndpointOptions } from './token-endpoint.js';
import { TokenEndpoint } from './token-endpoint.js';
import type { TokenResponse } from './token-response.js';

/** docs/protocol.md#token-request: a body over 64 KiB gets 413 invalid_request. */
const TOKEN_BODY_LIMIT_BYTES = 64 * 1024;

export interface AuthzOptions extends Omit<TokenEndpointOptions, 'signingKeys' | 'replayStore'> {
  readonly host: string;
  readonly port: number;
  /** `--signing-keys` or injected; by default one key generated in memory (docs/protocol.md#signing-keys). */
  readonly signingKeys?: SigningKeySource;
  /** `--replay-store` or injected; by default the in-memory store of docs/protocol.md#replay-store on the same clock. */
  readonly replayStore?: ReplayStore;
  /** Connection cap and request bound (docs/security.md#security-properties); tests shorten the bound. */
  readonly limits?: Partial<ServerLimits>;
}

export interface RunningAuthz {
  /** The bound base URL (port 0 resolved). */
  readonly url: URL;
  readonly signingKeys: SigningKeySource;
  readonly replayStore: ReplayStore;
  close(): Promise<void>;
}

/** Builds the token service and listens; the caller owns the bundle source, the stores and the audit log. */
export async function startAuthz(options: AuthzOptions): Promise<RunningAuthz> {
  const signingKeys = options.signingKeys ?? fixedSigningKeys(signingKeySet([await generateAccessTokenSigningKey()]));
  const replayStore = options.replayStore ?? new ReplayCache(options.clock ? { clock: options.clock } : {});
  const endpoint = new TokenEndpoint({ ...options, signingKeys, replayStore });
  const server = createAuthzServer(options.issuer, endpoint, signingKeys, options.metrics, options.limits);
  const url = await listen(server, options.host, options.port);
  return { url, signingKeys, replayStore, close: () => closeServer(server) };
}

/**
 * HTTP composition: three routes, everything else 404, a wrong method 405 with Allow. The metadata
 * never changes while the process runs, so it is built once; the key set is read per request, as a
 * change of the key file replaces it.
 */
function createAuthzServer(
  issuer: string,
  endpoint: TokenEndpoint,
  signingKeys: SigningKeySource,
  metrics: ServiceMetrics | undefined,
  limits: Partial<ServerLimits> | undefined,
): Server {
  const metadata = authorizationServerMetadata(issuer);
  const routes: RouteTable = new Map<string, Readonly<Record<string, Handler>>>([
    // RFC 8414 §3: the issuer's path goes after the well-known prefix.
    [authorizationServerMetadataUrl(issuer).pathname, { GET: (_req, res) => sendJson(res, 200, metadata) }],
    [JWKS_PATH, { GET: (_req, res) => sendJson(res, 200, signingKeys.current().jwks) }],
    [
      TOKEN_PATH,
      {
        POST: (req, res) => {
          metrics?.timeResponse(res);
          return handleTokenRequest(endpoint, req, res);
        },
      },
    ],
  ]);
  const handler = routeRequests(routes, {
    notFound: (_req, res) =>
      sendJson(res, 404, { error: 'not_found', error_description: 'There is no such endpoint.' }),
    methodNotAllowed: (_req, res) =>
      sendJson(res, 405, { error: 'method_not_allowed', error_description: 'Method not allowed here.' }),
    failed: (_req, res) =>
      sendJson(res, 500, { error: 'server_error', error_description: 'The token service hit an unexpected error.' }),
  });
  return createBoundedServer(handler, { limits, busyBody: BUSY_BODY });
}

/** Over the connection cap: the token service's own 503 (docs/protocol.md#limits). */
const BUSY_BODY = {
  error: TEMPORARILY_UNAVAILABLE.protocolCode,
  error_description: TEMPORARILY_UNAVAILABLE.description,
};

async function handleTokenRequest(endpoint: TokenEndpoint, req: IncomingMessage, res: ServerResponse): Promise<void> {
  let body: Buffer;
  try {
    body = await readBody(req, TOKEN_BODY_LIMIT_BYTES);
  } catch (err) {
    if (!(err instanceof BodyTooLargeError)) {
      // The client went away mid-body: nobody is left to answer.
      req.destroy();
      return;
    }
    const refused = endpoint.refuse(tokenError('ERR_BODY_TOO_LARGE', `body over ${TOKEN_BODY_LIMIT_BYTES} bytes`));
    sendJsonAndClose(res, refused.status, refused.body, refused.headers);
    return;
  }
  send(res, await endpoint.respond(req.headers['content-type'], body));
}

function send(res: ServerResponse, response: TokenResponse): void {
  sendJson(res, response.status, response.body, response.headers);
}

/** Last resort when a handler threw outside the token endpoint's own error handling. */
