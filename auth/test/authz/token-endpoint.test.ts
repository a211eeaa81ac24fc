import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { TOKEN_ENDPOINT_ERRORS } from '../../src/errors/token-endpoint-errors.js';
import type { JwtBundleSource } from '../../src/spiffe/bundles/jwt-bundle-source.js';
import type { AuthzHarness } from '../support/authz-fixtures.js';
import { ISSUER, RESOURCE_A, RESOURCE_B, startHarness } from '../support/authz-fixtures.js';
import { START_MS } from '../support/manual-clock.js';
import { bundleWith, SUBJECT, signToken, testKey } from '../support/svid-fixtures.js';

async function issue(h: AuthzHarness, form: URLSearchParams) {
  const res = await h.post(form);
  const body = (await res.json()) as Record<string, unknown>;
  assert.equal(res.status, 200, JSON.stringify(body));
  return { res, body };
}

async function verifyAccessToken(h: AuthzHarness, token: unknown, audience: string) {
  assert.equal(typeof token, 'string');
  const jwks = (await (await fetch(new URL('/jwks.json', h.authz.url))).json()) as { keys: [] };
  return jwtVerify(String(token), createLocalJWKSet(jwks), {
    issuer: ISSUER,
    audience,
    typ: 'at+jwt',
    algorithms: ['ES256'],
    currentDate: new Date(h.clock.nowMs),
  });
}

describe('POST /token issues', () => {
  it('an audience-bound ES256 access token exactly as docs/protocol.md#access-token describes it', async (t) => {
    const h = await startHarness(t);
    const jti = 'svid-jti-1';
    const { res, body } = await issue(h, h.form(await h.svid({ jti }), { scope: 'notes:write notes:read' }));
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.equal(res.headers.get('pragma'), 'no-cache');
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.equal(res.headers.get('www-authenticate'), null);
    assert.deepEqual(Object.keys(body), ['access_token', 'token_type', 'expires_in', 'scope']);
    assert.equal(body.token_type, 'Bearer');
    assert.equal(body.expires_in, 300);
    assert.equal(body.scope, 'notes:read notes:write');

    const { payload, protectedHeader } = await verifyAccessToken(h, body.access_token, RESOURCE_A);
    assert.deepEqual(protectedHeader, { alg: 'ES256', typ: 'at+jwt', kid: h.authz.signingKeys.current().signing.kid });
    const nowS = START_MS / 1000;
    assert.deepEqual(
      { ...payload, jti: undefined },
      {
        iss: ISSUER,
        sub: SUBJECT,
        client_id: SUBJECT,
        aud: RESOURCE_A,
        scope: 'notes:read notes:write',
        iat: nowS,
        exp: nowS + 300,
        jti: undefined,
      },
    );
    assert.match(String(payload.jti), /^[0-9a-f]{32}$/);

    const line = h.lastAudit();
    assert.deepEqual(Object.keys(line).slice(0, 6), [
      'timestamp',
      'component',
      'spiffe_id',
      'tool',
      'decision',
      'reason',
    ]);
    assert.equal(line.timestamp, new Date(START_MS).toISOString());
    assert.equal(line.spiffe_id, SUBJECT);
    assert.equal(line.decision, 'allow');
    assert.match(String(line.reason), /svid_jti=svid-jti-1/);
    assert.equal(line.svid_jti, jti);
    assert.equal(line.access_token_jti, payload.jti);
    assert.equal(line.resource, RESOURCE_A);
    assert.equal(line.scope, 'notes:read notes:write');
  });

  it('a fresh jti per token and sorts and de-duplicates the scopes', async (t) => {
    const h = await startHarness(t);
    const scope = 'notes:write notes:read notes:write';
    const first = await issue(h, h.form(await h.svid(), { scope }));
    const second = await issue(h, h.form(await h.svid(), { scope }));
    assert.equal(first.body.scope, 'notes:read notes:write');
    const jtiOf = async (body: Record<string, unknown>) =>
      (await verifyAccessToken(h, body.access_token, RESOURCE_A)).payload.jti;
    assert.notEqual(await jtiOf(first.body), await jtiOf(second.body));
  });

  it('a token whose aud drops the trailing slash of the request and of the policy entry', async (t) => {
    const h = await startHarness(t);
    const slashed = await issue(h, h.form(await h.svid(), { resource: `${RESOURCE_A}/` }));
    await verifyAccessToken(h, slashed.body.access_token, RESOURCE_A);
    // The policy writes RESOURCE_B with a trailing slash; the request without it matches.
    const bare = await issue(h, h.form(await h.svid(), { resource: RESOURCE_B }));
    const { payload } = await verifyAccessToken(h, bare.body.access_token, RESOURCE_B);
    assert.equal(payload.aud, RESOURCE_B);
  });

  it('a token whose aud is the resource form of any spelling of a granted resource (docs/protocol.md#identifiers)', async (t) => {
    const h = await startHarness(t);
    const spelled = RESOURCE_A.replace('http://', 'HTTP://');
    const token = await issue(h, h.form(await h.svid(), { resource: `${spelled}/` }));
    const { payload } = await verifyAccessToken(h, token.body.access_token, RESOURCE_A);
    assert.equal(payload.aud, RESOURCE_A);
  });

  it('a token for an SVID at the limits: aud as a string, exp - iat = 300 s, 29 s past exp, matching client_id', async (t) => {
    const h = await startHarness(t);
    await issue(h, h.form(await h.svid({ aud: ISSUER })));
    await issue(h, h.form(await h.svid({ iat: h.clock.nowS - 100, exp: h.clock.nowS + 200 })));
    await issue(h, h.form(await h.svid({ iat: h.clock.nowS - 300, exp: h.clock.nowS - 29 })));
    await issue(h, h.form(await h.svid({ iat: h.clock.nowS + 30, exp: h.clock.nowS + 330 })));
    await issue(h, h.form(await h.svid(), { client_id: SUBJECT }));
  });

  it('a token for a jti of 256 characters, counted as code points', async (t) => {
    const h = await startHarness(t);
    await issue(h, h.form(await h.svid({ jti: '🔑'.repeat(256) })));
    await issue(h, h.form(await h.svid({ jti: 'j'.repeat(256) })));
  });

  it('a token for an RS256 SVID', async (t) => {
    const key = testKey('rsa-2048', 'rsa-key');
    const h = await startHarness(t, { key, bundles: await bundleWith([key]) });
    await issue(h, h.form(await signToken(key.privateKey, { alg: 'RS256', kid: key.kid, typ: 'JWT' }, h.claims())));
  });

  it('honours --max-svid-lifetime with equality accepted', async (t) => {
    const h = await startHarness(t, { maxSvidLifetimeS: 60 });
    await issue(h, h.form(await h.svid({ exp: h.clock.nowS + 60 })));
    const res = await h.post(h.form(await h.svid({ exp: h.clock.nowS + 61 })));
    assert.equal(res.status, 401);
    assert.match(String(h.lastAudit().reason), /61 s, more than 60 s/);
  });

  it('accepts a charset parameter and ignores unknown parameters', async (t) => {
    const h = await startHarness(t);
    const form = h.form(await h.svid());
    form.append('audience', 'ignored');
    const res = await h.post(form, 'Application/X-WWW-Form-Urlencoded;charset=UTF-8');
    assert.equal(res.status, 200);
  });
});

describe('POST /token limits and faults', () => {
  it('answers 413 invalid_request to a body over 64 KiB, and reads one of exactly 64 KiB', async (t) => {
    const h = await startHarness(t);
    const base = h.form(await h.svid()).toString();
    const exact = `${base}&pad=${'p'.repeat(64 * 1024 - base.length - 5)}`;
    assert.equal(exact.length, 64 * 1024);
    assert.equal((await h.post(exact)).status, 200);

    const res = await h.post(`${exact}x`);
    assert.equal(res.status, 413);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const spec = TOKEN_ENDPOINT_ERRORS.ERR_BODY_TOO_LARGE;
    assert.deepEqual(await res.json(), { error: 'invalid_request', error_description: spec.description });
    const line = h.lastAudit();
    assert.equal(line.decision, 'deny');
    assert.equal(line.spiffe_id, null);
    assert.match(String(line.reason), /^invalid_request: /);
    // The server is still there.
    assert.equal((await h.post(h.form(await h.svid()))).status, 200);
  });

  it('turns an unexpected exception into a fixed 500 server_error, the detail only in the audit line', async (t) => {
    const broken: JwtBundleSource = {
      keysFor: () => {
        throw new Error('bundle index corrupted at 0xdeadbeef');
      },
      ready: async () => {},
      close: async () => {},
    };
    const h = await startHarness(t, { bundles: broken });
    const res = await h.post(h.form(await h.svid()));
    assert.equal(res.status, 500);
    const text = await res.text();
    assert.deepEqual(JSON.parse(text), {
      error: 'server_error',
      error_description: TOKEN_ENDPOINT_ERRORS.ERR_SERVER.description,
    });
    assert.doesNotMatch(text, /deadbeef/);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const line = h.lastAudit();
    assert.equal(line.decision, 'deny');
    assert.match(String(line.reason), /^server_error: .*bundle index corrupted at 0xdeadbeef/);
  });

  it('answers a burst of hostile assertions without crashing and keeps serving', async (t) => {
    const h = await startHarness(t);
    const hostile = [
      'a.b',
      '....',
      `${'x'.repeat(70)}.${'y'.repeat(70)}.z`,
      `${Buffer.from('[]').toString('base64url')}.${Buffer.from('{}').toString('base64url')}.c2ln`,
      `${Buffer.from('{"alg":"ES256","kid":"agent-key"}').toString('base64url')}.${Buffer.from('"str"').toString('base64url')}.c2ln`,
      `${Buffer.from('{"alg":"ES256","kid":"agent-key"}').toString('base64url')}.${Buffer.from('{"sub":"spiffe://example.org/agent"}').toString('base64url')}.!!!`,
      'e30.e30.e30',
    ];
    const responses = await Promise.all(hostile.map((token) => h.post(h.form(token))));
    assert.deepEqual(
      responses.map((res) => res.status),
      hostile.map(() => 401),
    );
    assert.equal(h.audit.length, hostile.length);
    assert.equal((await h.post(h.form(await h.svid()))).status, 200);
  });

  it('refuses a token signed by a key that was in no bundle, even with a known kid from another trust domain', async (t) => {
    const other = testKey('P-256', 'other-td-key');
    const h = await startHarness(t);
    const token = await signToken(other.privateKey, { alg: 'ES256', kid: other.kid }, h.claims());
    const res = await h.post(h.form(token));
    assert.equal(res.status, 401);
    assert.match(String(h.lastAudit().reason), /kid other-td-key is not in the bundle of example\.org/);
  });
});
