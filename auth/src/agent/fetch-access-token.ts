import type { FetchLike } from '@modelcontextprotocol/client';
import { UsageError } from '@notegate/kit/cli';
import type { AuditLog } from '../audit/audit-log.js';
import { requireResourceForm } from '../oauth/identifier.js';
import { parseScopeParameter } from '../oauth/scope.js';
import { clip } from '../shared/clip.js';
import type { Clock } from '../shared/clock.js';
import { systemClock } from '../shared/clock.js';
import { refused } from './agent-errors.js';
import { readAuthorizationServerMetadata } from './authorization-server-metadata.js';
import type { JwtSvidSource } from './fetch-svid.js';
import { fetchSvidFor } from './fetch-svid.js';
import type { AgentHttp } from './http-exchange.js';
import { DEFAULT_REQUEST_TIMEOUT_MS } from './http-exchange.js';
import { IssuerAllowlist } from './issuer-allowlist.js';
import type { ProtectedResourceMetadata } from './protected-resource-metadata.js';
import { readProtectedResourceMetadata } from './protected-resource-metadata.js';
import type { AccessTokenCache } from './token-cache.js';
import type { AccessToken } from './token-request.js';
import { requestAccessToken } from './token-request.js';

/** Ours: how much of a server-supplied issuer list goes into messages and audit lines. */
const MAX_ISSUERS_SHOWN = 10;
const MAX_ISSUER_CHARS = 200;

export interface FetchAccessTokenOptions {
  /** The MCP server's resource URI (absolute http(s), no query or fragment). */
  readonly resource: string;
  /** The issuer allowlist; at least one. */
  readonly trustedIssuers: readonly string[];
  /** Scopes to request, space-separated; default: every scope in the resource's scopes_supported (MCP). */
  readonly scope?: string;
  /** Where JWT-SVIDs come from (a WorkloadApiClient). */
  readonly svidSource: JwtSvidSource;
  /** A resource_metadata URL from a 401 challenge; default: the RFC 9728 well-known URL of the resource. */
  readonly resourceMetadataUrl?: string;
  readonly fetch?: FetchLike;
  readonly clock?: Clock;
  /** Receives the issuer decision (component `agent`). */
  readonly audit?: AuditLog;
  /** Reuses a token for the same (resource, issuer, scope) until shortly before it expires. */
  readonly cache?: AccessTokenCache;
  /** Bound of each HTTP request, body included. */
  readonly timeoutMs?: number;
}

/**
 * The agent's steps 1–5 (docs/protocol.md#agent-notegate-agent), in order: protected resource metadata,
 * the first allowlisted issuer (refused and audited before anything reaches an issuer or the Workload
 * API), that issuer's metadata, a JWT-SVID for it, and the token request. Every failure is an
 * `AgentError` naming the step; bad options are `UsageError`s.
 */
export async function fetchAccessToken(options: FetchAccessTokenOptions): Promise<AccessToken> {
  const allowlist = IssuerAllowlist.parse(options.trustedIssuers, 'trustedIssuers');
  const resource = requireResourceForm(options.resource, 'resource');
  const requestedScope = options.scope === undefined ? undefined : requireScope(options.scope, 'scope');
  const clock = options.clock ?? systemClock;
  const http: AgentHttp = { fetch: options.fetch ?? fetch, timeoutMs: options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS };

  const metadata = await readProtectedResourceMetadata(resource, options.resourceMetadataUrl, http);
  const issuer = selectIssuer(metadata, allowlist, options.audit);
  const scope = requestedScope ?? supportedScopes(metadata);
  const key = { resource: metadata.resource, issuer, scope };
  const cached = options.cache?.get(key);
  if (cached) return cached;

  const server = await readAuthorizationServerMetadata(issuer, http);
  const svid = await fetchSvidFor(options.svidSource, server.issuer);
  const token = await requestAccessToken(
    { tokenEndpoint: server.tokenEndpoint, issuer: server.issuer, svid, resource: metadata.resource, scope },
    http,
    clock,
  );
  options.cache?.set(key, token);
  return token;
}

/**
 * Agent step 2: the first advertised issuer on the allowlist. None → `issuer_refused`, audited here,
 * before any request to an advertised issuer and before any SVID is fetched.
 */
function selectIssuer(
  metadata: ProtectedResourceMetadata,
  allowlist: IssuerAllowlist,
  audit: AuditLog | undefined,
): string {
  const advertised = metadata.authorizationServers;
  const issuer = allowlist.firstTrusted(advertised);
  // The list comes from the server: bounded before it reaches a log line.
  const shown = advertised.slice(0, MAX_ISSUERS_SHOWN).map((value) => clip(value, MAX_ISSUER_CHARS));
  const extra = { resource: metadata.resource, advertised_issuers: shown };
  if (issuer === undefined) {
    const detail = `none of the issuers ${JSON.stringify(shown)} that ${metadata.resource} advertises is trusted`;
    audit?.record({
      component: 'agent',
      spiffeId: null,
      tool: null,
      decision: 'deny',
      reason: `issuer_refused: ${detail}`,
      extra: { ...extra, trusted_issuers: allowlist.entries },
    });
    throw refused('issuer_selection', 'issuer_refused', `${detail} (trusted: ${JSON.stringify(allowlist.entries)})`);
  }
  audit?.record({
    component: 'agent',
    spiffeId: null,
    tool: null,
    decision: 'allow',
    reason: `issuer_trusted: ${issuer}`,
    extra,
  });
  return issuer;
}

/** `scope` when it is scope tokens separated by single spaces (RFC 6749 §3.3); otherwise a UsageError. */
export function requireScope(scope: string, source: string): string {
  if (parseScopeParameter(scope) === null) {
    throw new UsageError(`${source}: '${scope}' is not RFC 6749 scope tokens separated by single spaces`);
  }
  return scope;
}

/** MCP's default when no scope is requested (2025-11-25 "Scope selection"): all of scopes_supported. */
function supportedScopes(metadata: ProtectedResourceMetadata): string {
  const supported = metadata.scopesSupported ?? [];
  if (supported.length === 0 || parseScopeParameter(supported.join(' ')) === null) {
    throw new UsageError(`scope: ${metadata.resource} lists no usable scopes_supported; name the scopes to request`);
  }
  return supported.join(' ');
}
