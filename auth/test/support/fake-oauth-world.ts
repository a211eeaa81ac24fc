import type { TestContext } from 'node:test';
import type { FetchAccessTokenOptions } from '../../src/agent/fetch-access-token.js';
import { AuditLog } from '../../src/audit/audit-log.js';
import { ScriptedServer } from './scripted-server.js';

export const PRM_PATH = '/.well-known/oauth-protected-resource/mcp';
export const AS_METADATA_PATH = '/.well-known/oauth-authorization-server';
export const FAKE_SVID = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln';

/** A counting stand-in for the Workload API. */
export class FakeSvidSource {
  readonly audiences: string[] = [];
  failure: Error | undefined;

  async fetchJwtSvid(request: { audience: string }): Promise<{ svid: string }> {
    this.audiences.push(request.audience);
    if (this.failure) throw this.failure;
    return { svid: FAKE_SVID };
  }
}

/**
 * A scripted protected resource and authorization server that answer like ours by default; each test
 * replaces the one answer it is about.
 */
export interface FakeOAuthWorld {
  readonly resourceServer: ScriptedServer;
  readonly authServer: ScriptedServer;
  readonly resource: string;
  readonly issuer: string;
  readonly svids: FakeSvidSource;
  readonly auditLines: string[];
  /** Options for fetchAccessToken against this world (scope notes:read). */
  readonly options: FetchAccessTokenOptions;
  prm(overrides?: Record<string, unknown>): Record<string, unknown>;
  asMetadata(overrides?: Record<string, unknown>): Record<string, unknown>;
  /** Requests that reached the authorization server. */
  authRequests(): number;
  /** The form fields of the token requests received. */
  tokenForms(): URLSearchParams[];
}

export async function fakeOAuthWorld(t: Pick<TestContext, 'after'>): Promise<FakeOAuthWorld> {
  const resourceServer = await ScriptedServer.start(t);
  const authServer = await ScriptedServer.start(t);
  const resource = resourceServer.at('/mcp');
  const issuer = authServer.url.origin;
  const prm = (overrides: Record<string, unknown> = {}) => ({
    resource,
    authorization_servers: [issuer],
    scopes_supported: ['notes:read', 'notes:write'],
    bearer_methods_supported: ['header'],
    ...overrides,
  });
  const asMetadata = (overrides: Record<string, unknown> = {}) => ({
    issuer,
    token_endpoint: authServer.at('/token'),
    jwks_uri: authServer.at('/jwks.json'),
    grant_types_supported: ['client_credentials'],
    token_endpoint_auth_methods_supported: ['spiffe_jwt'],
    response_types_supported: [],
    ...overrides,
  });
  resourceServer.json(PRM_PATH, prm());
  authServer.json(AS_METADATA_PATH, asMetadata());
  authServer.json(
    '/token',
    { access_token: 'access.token.value', token_type: 'Bearer', expires_in: 300, scope: 'notes:read' },
    200,
    { 'Cache-Control': 'no-store' },
  );
  const svids = new FakeSvidSource();
  const auditLines: string[] = [];
  return {
    resourceServer,
    authServer,
    resource,
    issuer,
    svids,
    auditLines,
    options: {
      resource,
      trustedIssuers: [issuer],
      scope: 'notes:read',
      svidSource: svids,
      audit: new AuditLog((line) => auditLines.push(line)),
      timeoutMs: 2_000,
    },
    prm,
    asMetadata,
    authRequests: () => authServer.requests.length,
    tokenForms: () => authServer.requests.filter((r) => r.path === '/token').map((r) => new URLSearchParams(r.body)),
  };
}
