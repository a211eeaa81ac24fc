import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SVID_ALGORITHMS } from '../../src/spiffe/svid/algorithms.js';
import { ISSUER, startHarness } from '../support/authz-fixtures.js';

describe('authz HTTP endpoints', () => {
  it('serves RFC 8414 metadata: the five fields plus response_types_supported and the SVID algorithms', async (t) => {
    const h = await startHarness(t);
    const res = await fetch(new URL('/.well-known/oauth-authorization-server', h.authz.url));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.deepEqual(await res.json(), {
      issuer: ISSUER,
      token_endpoint: `${ISSUER}/token`,
      jwks_uri: `${ISSUER}/jwks.json`,
      grant_types_supported: ['client_credentials'],
      token_endpoint_auth_methods_supported: ['spiffe_jwt'],
      token_endpoint_auth_signing_alg_values_supported: [...SVID_ALGORITHMS],
      response_types_supported: [],
    });
  });

  it('serves the metadata of an issuer with a path at the path-inserted location only', async (t) => {
    const issuer = 'http://127.0.0.1:8080/tenant-1/';
    const h = await startHarness(t, { issuer });
    const res = await fetch(new URL('/.well-known/oauth-authorization-server/tenant-1', h.authz.url));
    assert.equal(res.status, 200);
    const metadata = (await res.json()) as Record<string, unknown>;
    assert.equal(metadata.issuer, issuer);
    assert.equal(metadata.token_endpoint, 'http://127.0.0.1:8080/token');
    assert.equal((await fetch(new URL('/.well-known/oauth-authorization-server', h.authz.url))).status, 404);
    // The assertion's aud must be that issuer, exactly as configured.
    assert.equal((await h.post(h.form(await h.svid({ aud: [issuer] })))).status, 200);
    assert.equal((await h.post(h.form(await h.svid({ aud: ['http://127.0.0.1:8080/tenant-1'] })))).status, 401);
  });

  it('publishes the signing key, and only it, in /jwks.json', async (t) => {
    const h = await startHarness(t);
    const res = await fetch(new URL('/jwks.json', h.authz.url));
    assert.equal(res.status, 200);
    const { keys } = (await res.json()) as { keys: Array<Record<string, unknown>> };
    assert.equal(keys.length, 1);
    const [key] = keys;
    assert.deepEqual(Object.keys(key ?? {}).sort(), ['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);
    assert.equal(key?.kid, h.authz.signingKeys.current().signing.kid);
    assert.equal(key?.alg, 'ES256');
    assert.equal(key?.use, 'sig');
    assert.equal(key?.crv, 'P-256');
  });

  it('answers 404 elsewhere and 405 with Allow to a wrong method', async (t) => {
    const h = await startHarness(t);
    const at = (path: string, method = 'GET') => fetch(new URL(path, h.authz.url), { method });
    assert.equal((await at('/')).status, 404);
    assert.equal((await at('/token/extra', 'POST')).status, 404);
    assert.equal((await at('/.well-known/openid-configuration')).status, 404);
    const getToken = await at('/token');
    assert.equal(getToken.status, 405);
    assert.equal(getToken.headers.get('allow'), 'POST');
    const postJwks = await at('/jwks.json', 'POST');
    assert.equal(postJwks.status, 405);
    assert.equal(postJwks.headers.get('allow'), 'GET');
    assert.equal((await at('/jwks.json', 'HEAD')).status, 200);
    assert.equal(h.audit.length, 0);
  });
});
