import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { AuditLog } from '../../src/audit/audit-log.js';
import type { AuthzOptions, RunningAuthz } from '../../src/authz/authz-server.js';
import { startAuthz } from '../../src/authz/authz-server.js';
import { JWT_SPIFFE_ASSERTION_TYPE } from '../../src/oauth/spiffe-client-auth.js';
import { parsePolicy } from '../../src/policy/policy-file.js';
import { fixedPolicy } from '../../src/policy/policy-source.js';
import type { JwtBundleSource } from '../../src/spiffe/bundles/jwt-bundle-source.js';
import { ManualClock } from './manual-clock.js';
import type { TestKey } from './svid-fixtures.js';
import { bundleWith, SUBJECT, signToken, testKey } from './svid-fixtures.js';

export const ISSUER = 'http://127.0.0.1:8080';
export const RESOURCE_A = 'http://127.0.0.1:8081/mcp';
export const RESOURCE_B = 'http://127.0.0.1:8082/mcp';
export const POLICY_YAML = `trust_domain: example.org
grants:
  - spiffe_id: spiffe://example.org/agent
    resources:
      - resource: ${RESOURCE_A}
        scopes: [notes:read, notes:write]
      - resource: ${RESOURCE_B}/
        scopes: [notes:read]
  - spiffe_id: spiffe://example.org/reader
    resources:
      - resource: ${RESOURCE_A}
        scopes: [notes:read]
`;

let jtiCounter = 0;

/** A unique jti per call, so reject mode never sees a replay by accident. */
function freshJti(): string {
  jtiCounter += 1;
  return `jti-${jtiCounter}`;
}

export interface AuthzHarness {
  readonly authz: RunningAuthz;
  readonly clock: ManualClock;
  readonly key: TestKey;
  readonly audit: string[];
  /** Claims of a valid SVID now, with overrides (a value of undefined removes the claim). */
  claims(overrides?: Record<string, unknown>): Record<string, unknown>;
  /** A valid ES256 SVID now, signed by the bundle key, with claim overrides. */
  svid(overrides?: Record<string, unknown>): Promise<string>;
  /** The form fields of a valid token request carrying `assertion`. */
  form(assertion: string, overrides?: Record<string, string | undefined>): URLSearchParams;
  post(body: string | URLSearchParams, contentType?: string): Promise<Response>;
  /** The last audit line, parsed. */
  lastAudit(): Record<string, unknown>;
}

export interface HarnessOptions extends Partial<Omit<AuthzOptions, 'bundles'>> {
  readonly bundles?: JwtBundleSource;
  readonly key?: TestKey;
  /** Share a clock with parts built outside the harness (an injected replay cache). */
  readonly manualClock?: ManualClock;
}

/** A real authz server on 127.0.0.1:0 with an in-memory bundle, a manual clock and captured audit lines. */
export async function startHarness(t: TestContext, options: HarnessOptions = {}): Promise<AuthzHarness> {
  const clock = options.manualClock ?? new ManualClock();
  const key = options.key ?? testKey('P-256', 'agent-key');
  const bundles = options.bundles ?? (await bundleWith([key]));
  const audit: string[] = [];
  const authz = await startAuthz({
    issuer: ISSUER,
    policy: fixedPolicy(parsePolicy(POLICY_YAML, 'test policy')),
    replayMode: 'reject',
    maxSvidLifetimeS: 300,
    host: '127.0.0.1',
    port: 0,
    clock: clock.now,
    audit: new AuditLog((line) => audit.push(line), { clock: clock.now }),
    ...options,
    bundles,
  });
  t.after(async () => {
    await authz.close();
    await bundles.close();
  });
  const claims = (overrides: Record<string, unknown> = {}) => {
    const base = { sub: SUBJECT, aud: [ISSUER], iat: clock.nowS, exp: clock.nowS + 300, jti: freshJti() };
    const merged: Record<string, unknown> = { ...base, ...overrides };
    for (const [name, value] of Object.entries(merged)) if (value === undefined) delete merged[name];
    return merged;
  };
  return {
    authz,
    clock,
    key,
    audit,
    claims,
    svid: (overrides = {}) => signToken(key.privateKey, { alg: 'ES256', kid: key.kid, typ: 'JWT' }, claims(overrides)),
    form: (assertion, overrides = {}) => tokenForm(assertion, overrides),
    post: (body, contentType = 'application/x-www-form-urlencoded') =>
      fetch(new URL('/token', authz.url), { method: 'POST', headers: { 'content-type': contentType }, body }),
    lastAudit: () => {
      const line = audit.at(-1);
      assert.ok(line, 'no audit line written');
      return JSON.parse(line) as Record<string, unknown>;
    },
  };
}

/** A client_credentials request with the jwt-spiffe assertion for RESOURCE_A and notes:read. */
export function tokenForm(assertion: string, overrides: Record<string, string | undefined> = {}): URLSearchParams {
  const fields: Record<string, string | undefined> = {
    grant_type: 'client_credentials',
    client_assertion_type: JWT_SPIFFE_ASSERTION_TYPE,
    client_assertion: assertion,
    resource: RESOURCE_A,
    scope: 'notes:read',
    ...overrides,
  };
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) form.append(name, value);
  return form;
}
