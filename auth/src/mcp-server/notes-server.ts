import type { Server } from 'node:http';
import { packageVersion } from '@notegate/kit/cli';
import {
  createBoundedServer,
  type Handler,
  pathOf,
  type RouteTable,
  routeRequests,
  type ServerLimits,
  sendJson,
} from '@notegate/kit/http';
import type { NotesEngine } from '@notegate/rag';
import type { AuditLog } from '../audit/audit-log.js';
import type { NotesServerMetrics } from '../metrics/notes-server-metrics.js';
import { type Clock, systemClock } from '../shared/clock.js';
import { DEFAULT_MAX_TOKEN_LIFETIME_S } from './bearer/claim-checks.js';
import { VerifiedTokenCache } from './bearer/verified-token-cache.js';
import { createAccessTokenVerifier } from './bearer/verify-access-token.js';
import { DecisionAudit } from './http/decision-audit.js';
import { createMcpEndpoint } from './http/mcp-endpoint.js';
import { protectedResourceMetadata, resourceIdentity } from './http/resource-identity.js';
import { SdkDispatcher } from './http/sdk-dispatch.js';
import { type FetchLike, fetchKeySet } from './keys/fetch-key-set.js';
import { KeySetCache } from './keys/key-set-cache.js';
import { notesTools } from './tools/notes-tools.js';
import { ToolCatalog, type ToolRegistration } from './tools/tool-catalog.js';

/** Over the connection cap (docs/protocol.md#limits): not a decision about the caller, so not audited. */
const BUSY_BODY = { error: 'temporarily_unavailable', error_description: 'The server is busy; retry later' };

export interface NotesServerConfig {
  /** Used in audit lines (`mcp_server:<name>`) and the metadata's resource_name. */
  readonly name: string;
  /** --resource: its resource form is the server's name (docs/protocol.md#identifiers). */
  readonly resource: string;
  /** Trusted issuer, compared exactly with the token's iss (RFC 9068 §4). */
  readonly issuer: string;
  /** The only place keys come from. */
  readonly jwksUri: string;
  /** The vaults it serves, opened by the caller; the server closes it. */
  readonly engine: NotesEngine;
  readonly audit: AuditLog;
  readonly clock?: Clock;
  readonly fetch?: FetchLike;
  /** Remember verified tokens until they expire (default on). */
  readonly cacheVerifiedTokens?: boolean;
  /** The tools to serve; default: notes.search, notes.read and notes.write over the engine. */
  readonly tools?: (engine: NotesEngine) => readonly ToolRegistration[];
  /** Told about unexpected tool exceptions (the client gets a fixed text). */
  readonly onFault?: (tool: string, err: unknown) => void;
  /** Connection cap and request bound (docs/security.md#security-properties); tests shorten the bound. */
  readonly limits?: Partial<ServerLimits>;
  /** Largest exp - iat of an accepted access token (default DEFAULT_MAX_TOKEN_LIFETIME_S). */
  readonly maxTokenLifetimeS?: number;
  /** Decisions, request durations and key set fetches (docs/protocol.md#metrics). */
  readonly metrics?: NotesServerMetrics;
}

export interface NotesServer {
  readonly server: Server;
  readonly dispatcher: SdkDispatcher;
  /** The operator's key-set refetch (SIGHUP): resolves with the kids fetched, rejects with why it failed. */
  refetchKeySet(): Promise<readonly string[]>;
  close(): Promise<void>;
}

/**
 * Composition root of the notes server: validates the configuration (a tool
 * without a scope is a start-up error) and wires the routes over the engine.
 * Does not listen.
 */
export async function createNotesServer(config: NotesServerConfig): Promise<NotesServer> {
  const clock = config.clock ?? systemClock;
  const identity = resourceIdentity(config.resource);
  const { engine } = config;
  const onFault = config.onFault ?? (() => undefined);
  const catalog = ToolCatalog.create(config.tools ? config.tools(engine) : notesTools(engine, onFault));
  const tokenCache = config.cacheVerifiedTokens === false ? undefined : new VerifiedTokenCache();
  const fetchImpl = config.fetch ?? fetch;
  const keys = new KeySetCache({
    fetchKeySet: () => fetchKeySet(config.jwksUri, fetchImpl),
    clock,
    onKeysRevoked: () => tokenCache?.clear(),
    ...(config.metrics && { onFetched: config.metrics.keySetFetched.bind(config.metrics) }),
  });
  const verify = createAccessTokenVerifier({
    issuer: config.issuer,
    resource: identity.resource,
    keys,
    clock,
    maxLifetimeS: config.maxTokenLifetimeS ?? DEFAULT_MAX_TOKEN_LIFETIME_S,
    ...(tokenCache && { cache: tokenCache }),
  });
  const dispatcher = new SdkDispatcher({
    name: `notegate-notes-${config.name}`,
    // MCP serverInfo: the version `notegate --version` prints, the package's.
    version: packageVersion(import.meta.url),
  });
  const endpoint = createMcpEndpoint({
    identity,
    verify,
    catalog,
    dispatcher,
    audit: new DecisionAudit(config.audit, config.name, config.metrics),
  });
  const metadata = protectedResourceMetadata(identity, config.issuer, catalog.scopesSupported, config.name);
  const routes: RouteTable = new Map<string, Readonly<Record<string, Handler>>>([
    [
      identity.endpointPath,
      {
        POST: (req, res) => {
          config.metrics?.timeResponse(res);
          return endpoint.post(req, res);
        },
      },
    ],
    [identity.metadataPath, { GET: (_req, res) => sendJson(res, 200, metadata) }],
  ]);
  const handler = routeRequests(routes, {
    notFound: (_req, res) => sendJson(res, 404, { error: 'not_found', error_description: 'No such resource' }),
    methodNotAllowed: (req, res) => {
      // GET, DELETE and the rest on the MCP endpoint are audited decisions; elsewhere a plain 405.
      if (pathOf(req.url) === identity.endpointPath) return endpoint.refuseMethod(req, res);
      sendJson(res, 405, { error: 'invalid_request', error_description: 'Method not allowed' });
    },
    // The endpoint answers its own failures; anything else is the server's fault.
    failed: (_req, res) =>
      sendJson(res, 500, { error: 'server_error', error_description: 'The server hit an unexpected error' }),
  });
  const server = createBoundedServer(handler, { limits: config.limits, busyBody: BUSY_BODY });
  return {
    server,
    dispatcher,
    refetchKeySet: () => keys.refetchNow(),
    close: async () => {
      await dispatcher.close();
      await engine.close();
    },
  };
}
