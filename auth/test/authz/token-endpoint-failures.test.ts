import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TokenEndpointErrorCode } from '../../src/errors/token-endpoint-errors.js';
import { TOKEN_ENDPOINT_ERRORS } from '../../src/errors/token-endpoint-errors.js';
import { MemoryBundleSource } from '../../src/spiffe/bundles/memory-bundle-source.js';
import type { AuthzHarness, HarnessOptions } from '../support/authz-fixtures.js';
import { ISSUER, RESOURCE_A, RESOURCE_B, startHarness } from '../support/authz-fixtures.js';
import { bundleWith, rawToken, SUBJECT, signToken, testKey } from '../support/svid-fixtures.js';

/** How the audit line must name the caller. */
type AuditIdentity = 'null' | 'unverified' | 'verified';

interface FailureRow {
  /** The row of docs/protocol.md#client-authentication (or "request" for the checks that come before the table). */
  readonly row: string;
  readonly name: string;
  readonly code: TokenEndpointErrorCode;
  readonly identity: AuditIdentity;
  readonly setup?: () => Promise<HarnessOptions>;
  /** Builds the request; returns the form or a raw body with its content type. */
  readonly request: (h: AuthzHarness) => Promise<URLSearchParams | { body: string; contentType: string | undefined }>;
  /** The sub the audit line names, when it is not the usual agent. */
  readonly sub?: string;
  /** Audit detail fragment that must appear in the reason. */
  readonly detail?: RegExp;
}

/**
 * The status and OAuth code of every refusal, written out from docs/protocol.md#client-authentication and
 * #token-request (not read from the registry, so a wrong mapping in the registry fails here). The fixed
 * descriptions are the registry's own texts.
 */
const PINNED: Record<TokenEndpointErrorCode, readonly [number, string]> = {
  ERR_CONTENT_TYPE: [400, 'invalid_request'],
  ERR_BODY_TOO_LARGE: [413, 'invalid_request'],
  ERR_FORM_MALFORMED: [400, 'invalid_request'],
  ERR_GRANT_TYPE: [400, 'unsupported_grant_type'],
  ERR_ASSERTION_TYPE: [401, 'invalid_client'],
  ERR_REPEATED_PARAMETER: [400, 'invalid_request'],
  ERR_RESOURCE_MISSING: [400, 'invalid_target'],
  ERR_ASSERTION_MISSING: [401, 'invalid_client'],
  ERR_ASSERTION_MALFORMED: [401, 'invalid_client'],
  ERR_SVID_ALGORITHM: [401, 'invalid_client'],
  ERR_SVID_TYP: [401, 'invalid_client'],
  ERR_SVID_HEADER: [401, 'invalid_client'],
  ERR_SVID_KID_MISSING: [401, 'invalid_client'],
  ERR_SVID_SUBJECT: [401, 'invalid_client'],
  ERR_SVID_TRUST_DOMAIN: [401, 'invalid_client'],
  ERR_SVID_UNTRUSTED: [401, 'invalid_client'],
  ERR_SVID_KEY_UNKNOWN: [401, 'invalid_client'],
  ERR_SVID_KEY_ALGORITHM: [401, 'invalid_client'],
  ERR_SVID_SIGNATURE: [401, 'invalid_client'],
  ERR_SVID_CLAIM_MISSING: [401, 'invalid_client'],
  ERR_SVID_CLAIM_TYPE: [401, 'invalid_client'],
  ERR_SVID_EXPIRED: [401, 'invalid_client'],
  ERR_SVID_NOT_YET_VALID: [401, 'invalid_client'],
  ERR_SVID_AUDIENCE: [401, 'invalid_client'],
  ERR_SVID_LIFETIME: [401, 'invalid_client'],
  ERR_SVID_JTI: [401, 'invalid_client'],
  ERR_CLIENT_ID_MISMATCH: [401, 'invalid_client'],
  ERR_CLIENT_NOT_IN_POLICY: [400, 'unauthorized_client'],
  ERR_RESOURCE_NOT_ALLOWED: [400, 'invalid_target'],
  ERR_SCOPE_MISSING: [400, 'invalid_scope'],
  ERR_SCOPE_MALFORMED: [400, 'invalid_scope'],
  ERR_SCOPE_NOT_GRANTED: [400, 'invalid_scope'],
  ERR_SVID_REPLAYED: [401, 'invalid_client'],
  ERR_REPLAY_SHARE_FULL: [503, 'temporarily_unavailable'],
  ERR_REPLAY_STORE_FULL: [503, 'temporarily_unavailable'],
  ERR_REPLAY_STORE_UNAVAILABLE: [503, 'temporarily_unavailable'],
  ERR_BUNDLE_UNAVAILABLE: [503, 'temporarily_unavailable'],
  ERR_SERVER: [500, 'server_error'],
};

const SPIFFE_CHALLENGE = `spiffe_jwt realm="${ISSUER}"`;

const withSvid =
  (overrides: Record<string, unknown>, form: Record<string, string | undefined> = {}) =>
  async (h: AuthzHarness) =>
    h.form(await h.svid(overrides), form);
const withForm = (form: Record<string, string | undefined>) => withSvid({}, form);
const withToken = (token: (h: AuthzHarness) => Promise<string> | string) => async (h: AuthzHarness) =>
  h.form(await token(h));
const appended = (name: string, value: string) => async (h: AuthzHarness) => {
  const form = h.form(await h.svid());
  form.append(name, value);
  return form;
};

const ROWS: readonly FailureRow[] = [
  // Before the table: the request must be a form at all.
  {
    row: 'request',
    name: 'a JSON body',
    code: 'ERR_CONTENT_TYPE',
    identity: 'null',
    request: async () => ({ body: '{"grant_type":"client_credentials"}', contentType: 'application/json' }),
  },
  {
    row: 'request',
    name: 'a body without Content-Type',
    code: 'ERR_CONTENT_TYPE',
    identity: 'null',
    request: async () => ({ body: 'grant_type=client_credentials', contentType: undefined }),
  },
  {
    row: 'request',
    name: 'a form in a charset other than UTF-8',
    code: 'ERR_CONTENT_TYPE',
    identity: 'null',
    request: async (h) => ({
      body: h.form(await h.svid()).toString(),
      contentType: 'application/x-www-form-urlencoded; charset=iso-8859-1',
    }),
  },
  {
    row: 'request',
    name: 'a broken percent-escape',
    code: 'ERR_FORM_MALFORMED',
    identity: 'null',
    request: async () => ({
      body: 'grant_type=client%ZZcredentials',
      contentType: 'application/x-www-form-urlencoded',
    }),
  },
  {
    row: 'request',
    name: 'percent-encoded bytes that are not UTF-8',
    code: 'ERR_FORM_MALFORMED',
    identity: 'null',
    request: async () => ({ body: 'scope=%C3%28', contentType: 'application/x-www-form-urlencoded' }),
  },
  {
    row: 'request',
    name: 'raw bytes outside printable ASCII',
    code: 'ERR_FORM_MALFORMED',
    identity: 'null',
    request: async () => ({ body: 'scope=notes:read\u00e9', contentType: 'application/x-www-form-urlencoded' }),
  },
  // grant_type is client_credentials → 400 unsupported_grant_type
  {
    row: 'grant_type',
    name: 'grant_type password',
    code: 'ERR_GRANT_TYPE',
    identity: 'unverified',
    request: withForm({ grant_type: 'password' }),
    detail: /grant_type is "password"/,
  },
  {
    row: 'grant_type',
    name: 'no grant_type',
    code: 'ERR_GRANT_TYPE',
    identity: 'unverified',
    request: withForm({ grant_type: undefined }),
  },
  {
    row: 'grant_type',
    name: 'a second grant_type with another value',
    code: 'ERR_GRANT_TYPE',
    identity: 'unverified',
    request: appended('grant_type', 'authorization_code'),
  },
  // client_assertion_type is the jwt-spiffe URN → 401 invalid_client
  {
    row: 'client_assertion_type',
    name: 'the jwt-bearer assertion type',
    code: 'ERR_ASSERTION_TYPE',
    identity: 'unverified',
    request: withForm({ client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer' }),
  },
  {
    row: 'client_assertion_type',
    name: 'no client_assertion_type',
    code: 'ERR_ASSERTION_TYPE',
    identity: 'unverified',
    request: withForm({ client_assertion_type: undefined }),
  },
  // No repeated form parameter → 400 invalid_request
  {
    row: 'repeated parameter',
    name: 'a second resource',
    code: 'ERR_REPEATED_PARAMETER',
    identity: 'unverified',
    request: appended('resource', RESOURCE_B),
    detail: /"resource" sent 2 times/,
  },
  {
    row: 'repeated parameter',
    name: 'client_credentials sent twice',
    code: 'ERR_REPEATED_PARAMETER',
    identity: 'unverified',
    request: appended('grant_type', 'client_credentials'),
  },
  {
    row: 'repeated parameter',
    name: 'a second client_assertion',
    code: 'ERR_REPEATED_PARAMETER',
    identity: 'null',
    request: async (h) => {
      const form = h.form(await h.svid());
      form.append('client_assertion', await h.svid());
      return form;
    },
  },
  {
    row: 'repeated parameter',
    name: 'an unknown parameter sent twice',
    code: 'ERR_REPEATED_PARAMETER',
    identity: 'unverified',
    request: async (h) => {
      const form = h.form(await h.svid());
      form.append('extra', '1');
      form.append('extra', '2');
      return form;
    },
  },
  // resource present → 400 invalid_target
  {
    row: 'resource present',
    name: 'no resource',
    code: 'ERR_RESOURCE_MISSING',
    identity: 'unverified',
    request: withForm({ resource: undefined }),
  },
  {
    row: 'resource present',
    name: 'an empty resource (RFC 6749 §3.2: treated as omitted)',
    code: 'ERR_RESOURCE_MISSING',
    identity: 'unverified',
    request: withForm({ resource: '' }),
  },
  // SVID alg in the allowed list → 401 invalid_client (and the assertion must be a JWT)
  {
    row: 'alg',
    name: 'no client_assertion',
    code: 'ERR_ASSERTION_MISSING',
    identity: 'null',
    request: withForm({ client_assertion: undefined }),
  },
  {
    row: 'alg',
    name: 'an assertion of two parts',
    code: 'ERR_ASSERTION_MALFORMED',
    identity: 'null',
    request: withToken(async (h) => (await h.svid()).split('.').slice(0, 2).join('.')),
  },
  {
    row: 'alg',
    name: 'a header that is not JSON',
    code: 'ERR_ASSERTION_MALFORMED',
    identity: 'null',
    request: withToken(
      async (h) => `${Buffer.from('{alg').toString('base64url')}.${(await h.svid()).split('.')[1]}.c2ln`,
    ),
  },
  {
    row: 'alg',
    name: 'deeply nested claims',
    code: 'ERR_ASSERTION_MALFORMED',
    identity: 'null',
    request: withToken((h) => {
      let nested: unknown = 'x';
      for (let depth = 0; depth < 40; depth++) nested = { nested };
      return rawToken({ alg: 'ES256', kid: h.key.kid }, h.claims({ extra: nested }));
    }),
    detail: /nested deeper/,
  },
  {
    row: 'alg',
    name: 'an assertion over 16 KiB',
    code: 'ERR_ASSERTION_MALFORMED',
    identity: 'null',
    request: withSvid({ padding: 'p'.repeat(20_000) }),
  },
  {
    row: 'alg',
    name: 'alg none',
    code: 'ERR_SVID_ALGORITHM',
    identity: 'unverified',
    request: withToken((h) => rawToken({ alg: 'none', kid: h.key.kid }, h.claims())),
  },
  {
    row: 'alg',
    name: 'alg none with the empty signature part it usually has',
    code: 'ERR_ASSERTION_MALFORMED',
    identity: 'null',
    request: withToken((h) => rawToken({ alg: 'none', kid: h.key.kid }, h.claims(), '')),
  },
  {
    row: 'alg',
    name: 'alg HS256',
    code: 'ERR_SVID_ALGORITHM',
    identity: 'unverified',
    request: withToken((h) => signToken(new Uint8Array(32).fill(7), { alg: 'HS256', kid: h.key.kid }, h.claims())),
  },
  {
    row: 'alg',
    name: 'alg PS512 (not in the allowlist)',
    code: 'ERR_SVID_ALGORITHM',
    identity: 'unverified',
    request: withToken((h) => rawToken({ alg: 'PS512', kid: h.key.kid }, h.claims())),
  },
  {
    row: 'alg',
    name: 'typ at+jwt',
    code: 'ERR_SVID_TYP',
    identity: 'unverified',
    request: withToken((h) => signToken(h.key.privateKey, { alg: 'ES256', kid: h.key.kid, typ: 'at+jwt' }, h.claims())),
  },
  {
    row: 'alg',
    name: 'a jku header',
    code: 'ERR_SVID_HEADER',
    identity: 'unverified',
    request: withToken((h) =>
      signToken(h.key.privateKey, { alg: 'ES256', kid: h.key.kid, jku: 'http://evil.example/jwks' }, h.claims()),
    ),
  },
  {
    row: 'alg',
    name: 'no kid',
    code: 'ERR_SVID_KID_MISSING',
    identity: 'unverified',
    request: withToken((h) => signToken(h.key.privateKey, { alg: 'ES256' }, h.claims())),
  },
  // sub is a valid SPIFFE ID in the policy trust domain → 401 invalid_client
  {
    row: 'sub',
    name: 'a sub that is not a SPIFFE ID',
    code: 'ERR_SVID_SUBJECT',
    identity: 'unverified',
    request: withSvid({ sub: 'https://example.org/agent' }),
    sub: 'https://example.org/agent',
  },
  {
    row: 'sub',
    name: 'a numeric sub',
    code: 'ERR_SVID_SUBJECT',
    identity: 'null',
    request: withSvid({ sub: 42 }),
  },
  {
    row: 'sub',
    name: 'no sub',
    code: 'ERR_SVID_SUBJECT',
    identity: 'null',
    request: withSvid({ sub: undefined }),
  },
  {
    row: 'sub',
    name: 'a sub in another trust domain',
    code: 'ERR_SVID_TRUST_DOMAIN',
    identity: 'unverified',
    request: withSvid({ sub: 'spiffe://evil.example/agent' }),
    sub: 'spiffe://evil.example/agent',
  },
  // Signature verifies against the bundle, key chosen by kid → 401 invalid_client
  {
    row: 'signature',
    name: 'an unknown kid',
    code: 'ERR_SVID_KEY_UNKNOWN',
    identity: 'unverified',
    request: withToken((h) => signToken(h.key.privateKey, { alg: 'ES256', kid: 'other-kid' }, h.claims())),
  },
  {
    row: 'signature',
    name: 'a signature by another key under the same kid',
    code: 'ERR_SVID_SIGNATURE',
    identity: 'unverified',
    request: withToken((h) =>
      signToken(testKey('P-256', h.key.kid).privateKey, { alg: 'ES256', kid: h.key.kid }, h.claims()),
    ),
  },
  {
    row: 'signature',
    name: 'ES384 over a P-256 key',
    code: 'ERR_SVID_KEY_ALGORITHM',
    identity: 'unverified',
    request: withToken((h) =>
      signToken(testKey('P-384', 'x').privateKey, { alg: 'ES384', kid: h.key.kid }, h.claims()),
    ),
  },
  {
    row: 'signature',
    name: 'a bundle without the policy trust domain',
    code: 'ERR_SVID_UNTRUSTED',
    identity: 'unverified',
    setup: async () => {
      const key = testKey('P-256', 'agent-key');
      return { key, bundles: await bundleWith([key], 'other.example') };
    },
    request: withSvid({}),
  },
  // sub, aud, exp, iat present (plus jti in reject mode); exp not past → 401 invalid_client
  ...(['aud', 'exp', 'iat', 'jti'] as const).map(
    (claim): FailureRow => ({
      row: 'claims present',
      name: `no ${claim}`,
      code: 'ERR_SVID_CLAIM_MISSING',
      identity: 'verified',
      request: withSvid({ [claim]: undefined }),
      detail: new RegExp(`${claim} is missing`),
    }),
  ),
  {
    row: 'claims present',
    name: 'an exp that is a string',
    code: 'ERR_SVID_CLAIM_TYPE',
    identity: 'verified',
    request: async (h) => h.form(await h.svid({ exp: String(h.clock.nowS + 60) })),
  },
  {
    row: 'claims present',
    name: 'an iat that is a string',
    code: 'ERR_SVID_CLAIM_TYPE',
    identity: 'verified',
    request: async (h) => h.form(await h.svid({ iat: String(h.clock.nowS) })),
  },
  {
    row: 'exp not past',
    name: 'an SVID expired 30 s ago (the leeway is used up)',
    code: 'ERR_SVID_EXPIRED',
    identity: 'verified',
    request: async (h) => h.form(await h.svid({ iat: h.clock.nowS - 100, exp: h.clock.nowS - 30 })),
  },
  {
    row: 'exp not past',
    name: 'an nbf beyond the leeway',
    code: 'ERR_SVID_NOT_YET_VALID',
    identity: 'verified',
    request: async (h) => h.form(await h.svid({ nbf: h.clock.nowS + 31 })),
  },
  // aud is the issuer and nothing else → 401 invalid_client
  ...(
    [
      ['another audience', ['http://127.0.0.1:9999']],
      ['the issuer plus a second value', [ISSUER, 'http://127.0.0.1:8081/mcp']],
      ['the issuer with a trailing slash', `${ISSUER}/`],
      ['the token endpoint URL', `${ISSUER}/token`],
      ['an empty list', []],
      ['a number', 8080],
    ] as const
  ).map(
    ([name, aud]): FailureRow => ({
      row: 'aud',
      name: `aud: ${name}`,
      code: 'ERR_SVID_AUDIENCE',
      identity: 'verified',
      request: withSvid({ aud }),
    }),
  ),
  // exp minus iat at most --max-svid-lifetime → 401 invalid_client
  {
    row: 'lifetime',
    name: 'exp - iat of 301 s',
    code: 'ERR_SVID_LIFETIME',
    identity: 'verified',
    request: async (h) => h.form(await h.svid({ exp: h.clock.nowS + 301 })),
    detail: /301 s, more than 300 s/,
  },
  {
    row: 'lifetime',
    name: 'an exp before iat',
    code: 'ERR_SVID_LIFETIME',
    identity: 'verified',
    request: async (h) => h.form(await h.svid({ iat: h.clock.nowS + 10, exp: h.clock.nowS + 5 })),
  },
  {
    row: 'lifetime',
    name: 'an iat more than 30 s in the future',
    code: 'ERR_SVID_NOT_YET_VALID',
    identity: 'verified',
    request: async (h) => h.form(await h.svid({ iat: h.clock.nowS + 31, exp: h.clock.nowS + 300 })),
  },
  // jti, if present, is a string of 1 to 256 characters → 401 invalid_client
  {
    row: 'jti',
    name: 'an empty jti',
    code: 'ERR_SVID_JTI',
    identity: 'verified',
    request: withSvid({ jti: '' }),
  },
  {
    row: 'jti',
    name: 'a jti of 257 characters',
    code: 'ERR_SVID_JTI',
    identity: 'verified',
    request: withSvid({ jti: 'j'.repeat(257) }),
  },
  {
    row: 'jti',
    name: 'a numeric jti',
    code: 'ERR_SVID_JTI',
    identity: 'verified',
    request: withSvid({ jti: 7 }),
  },
  // client_id, if sent, equals sub → 401 invalid_client
  {
    row: 'client_id',
    name: 'a client_id naming another workload',
    code: 'ERR_CLIENT_ID_MISMATCH',
    identity: 'verified',
    request: withForm({ client_id: 'spiffe://example.org/reader' }),
  },
  // SPIFFE ID present in policy → 400 unauthorized_client
  {
    row: 'policy',
    name: 'a workload the policy does not name',
    code: 'ERR_CLIENT_NOT_IN_POLICY',
    identity: 'verified',
    request: withSvid({ sub: 'spiffe://example.org/stranger' }),
    sub: 'spiffe://example.org/stranger',
  },
  // Resource allowed for that SPIFFE ID → 400 invalid_target
  {
    row: 'resource allowed',
    name: 'a resource not granted to the caller',
    code: 'ERR_RESOURCE_NOT_ALLOWED',
    identity: 'verified',
    request: withSvid({ sub: 'spiffe://example.org/reader' }, { resource: RESOURCE_B }),
    sub: 'spiffe://example.org/reader',
  },
  {
    row: 'resource allowed',
    name: 'a granted resource with two trailing slashes',
    code: 'ERR_RESOURCE_NOT_ALLOWED',
    identity: 'verified',
    request: withForm({ resource: `${RESOURCE_A}//` }),
  },
  {
    row: 'resource allowed',
    name: 'a granted resource in other letter case',
    code: 'ERR_RESOURCE_NOT_ALLOWED',
    identity: 'verified',
    request: withForm({ resource: RESOURCE_A.toUpperCase() }),
  },
  ...(
    [
      ['a granted resource with a query', `${RESOURCE_A}?tenant=1`],
      ['a granted resource with user information', RESOURCE_A.replace('http://', 'http://me@')],
      ['a relative resource', '/mcp'],
      ['a granted resource on another host spelling of the same address', RESOURCE_A.replace('127.0.0.1', 'localhost')],
    ] as const
  ).map(
    ([name, resource]): FailureRow => ({
      row: 'resource allowed',
      name,
      code: 'ERR_RESOURCE_NOT_ALLOWED',
      identity: 'verified',
      request: withForm({ resource }),
    }),
  ),
  // scope present, well formed, subset of grant → 400 invalid_scope
  {
    row: 'scope',
    name: 'no scope (there is no default)',
    code: 'ERR_SCOPE_MISSING',
    identity: 'verified',
    request: withForm({ scope: undefined }),
  },
  ...(
    [
      ['a double space', 'notes:read  notes:write'],
      ['a leading space', ' notes:read'],
      ['a trailing space', 'notes:read '],
      ['a double quote', 'notes:"read'],
      ['a tab', 'notes:read\tnotes:write'],
    ] as const
  ).map(
    ([name, scope]): FailureRow => ({
      row: 'scope',
      name: `a scope with ${name}`,
      code: 'ERR_SCOPE_MALFORMED',
      identity: 'verified',
      request: withForm({ scope }),
    }),
  ),
  {
    row: 'scope',
    name: 'a scope beyond the grant',
    code: 'ERR_SCOPE_NOT_GRANTED',
    identity: 'verified',
    request: withForm({ scope: 'notes:read notes:admin' }),
    detail: /not granted: "notes:admin"/,
  },
  {
    row: 'scope',
    name: 'a scope granted on another resource only',
    code: 'ERR_SCOPE_NOT_GRANTED',
    identity: 'verified',
    request: withForm({ resource: RESOURCE_B, scope: 'notes:write' }),
  },
  // Trust bundle fetch fails → 503 temporarily_unavailable
  {
    row: 'bundle',
    name: 'a bundle source that has delivered nothing yet',
    code: 'ERR_BUNDLE_UNAVAILABLE',
    identity: 'unverified',
    setup: async () => ({ bundles: new MemoryBundleSource() }),
    request: withSvid({}),
  },
];

async function send(h: AuthzHarness, row: FailureRow): Promise<Response> {
  const request = await row.request(h);
  if (request instanceof URLSearchParams) return h.post(request);
  const headers: Record<string, string> = request.contentType ? { 'content-type': request.contentType } : {};
  return fetch(new URL('/token', h.authz.url), { method: 'POST', headers, body: request.body });
}

describe('POST /token refusals, one per row of the client-authentication table', () => {
  it('maps every error of the registry to the documented status and OAuth code', () => {
    for (const [code, spec] of Object.entries(TOKEN_ENDPOINT_ERRORS)) {
      assert.deepEqual([spec.status, spec.protocolCode], PINNED[code as TokenEndpointErrorCode], code);
    }
    assert.deepEqual(Object.keys(PINNED).sort(), Object.keys(TOKEN_ENDPOINT_ERRORS).sort());
  });

  for (const row of ROWS) {
    const [status, protocolCode] = PINNED[row.code];
    const expected = { status, protocolCode, description: TOKEN_ENDPOINT_ERRORS[row.code].description };
    it(`[${row.row}] refuses ${row.name} with ${status} ${protocolCode}`, async (t) => {
      const h = await startHarness(t, row.setup ? await row.setup() : {});
      const res = await send(h, row);
      assert.equal(res.status, expected.status);
      assert.deepEqual(await res.json(), { error: expected.protocolCode, error_description: expected.description });
      assert.equal(res.headers.get('cache-control'), 'no-store');
      assert.equal(res.headers.get('pragma'), 'no-cache');
      assert.equal(res.headers.get('content-type'), 'application/json');
      assert.equal(res.headers.get('www-authenticate'), expected.status === 401 ? SPIFFE_CHALLENGE : null);

      assert.equal(h.audit.length, 1);
      const line = h.lastAudit();
      assert.equal(line.component, 'authz');
      assert.equal(line.tool, null);
      assert.equal(line.decision, 'deny');
      assert.ok(
        String(line.reason).startsWith(`${expected.protocolCode}: ${expected.description}`),
        String(line.reason),
      );
      if (row.detail) assert.match(String(line.reason), row.detail);
      const sub = row.sub ?? SUBJECT;
      assert.equal(line.spiffe_id, { null: null, unverified: `unverified:${sub}`, verified: sub }[row.identity]);
    });
  }
});
