import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { describe, it } from 'node:test';
import { reservePort } from '@notegate/kit/http';
import * as oauth from 'oauth4webapi';
import { JWT_SPIFFE_ASSERTION_TYPE } from '../../src/oauth/spiffe-client-auth.js';
import { RESOURCE_A, RESOURCE_B, startHarness } from '../support/authz-fixtures.js';
import { ManualClock } from '../support/manual-clock.js';
import { SUBJECT } from '../support/svid-fixtures.js';

const insecure = { [oauth.allowInsecureRequests]: true } as const;

/** oauth4webapi discovers from the issuer, so the issuer must be the address we listen on. */
async function discovered(t: TestContext) {
  const port = await reservePort();
  const issuer = `http://127.0.0.1:${port}`;
  const clock = new ManualClock(Date.now());
  const h = await startHarness(t, { issuer, port, manualClock: clock });
  const issuerUrl = new URL(issuer);
  const response = await oauth.discoveryRequest(issuerUrl, { algorithm: 'oauth2', ...insecure });
  const as = await oauth.processDiscoveryResponse(issuerUrl, response);
  return { h, issuer, as };
}

/** jwt-spiffe client authentication as a custom ClientAuth: oauth4webapi has no built-in for it. */
function spiffeJwt(svid: string): oauth.ClientAuth {
  return (_as, _client, body) => {
    body.set('client_assertion_type', JWT_SPIFFE_ASSERTION_TYPE);
    body.set('client_assertion', svid);
  };
}

describe('oauth4webapi as an independent client of authz', () => {
  it('discovers the metadata, gets a token with a JWT-SVID, and validates it as RFC 9068 requires', async (t) => {
    const { h, issuer, as } = await discovered(t);
    assert.equal(as.issuer, issuer);
    assert.equal(as.token_endpoint, `${issuer}/token`);
    assert.deepEqual(as.token_endpoint_auth_methods_supported, ['spiffe_jwt']);

    const client: oauth.Client = { client_id: SUBJECT };
    const svid = await h.svid({ aud: [issuer] });
    const response = await oauth.clientCredentialsGrantRequest(
      as,
      client,
      spiffeJwt(svid),
      { resource: RESOURCE_A, scope: 'notes:read notes:write' },
      insecure,
    );
    const tokens = await oauth.processClientCredentialsResponse(as, client, response);
    assert.equal(tokens.token_type, 'bearer');
    assert.equal(tokens.expires_in, 300);
    assert.equal(tokens.scope, 'notes:read notes:write');

    const request = new Request(RESOURCE_A, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    const claims = await oauth.validateJwtAccessToken(as, request, RESOURCE_A, insecure);
    assert.equal(claims.iss, issuer);
    assert.equal(claims.sub, SUBJECT);
    assert.equal(claims.client_id, SUBJECT);
    assert.equal(claims.aud, RESOURCE_A);

    // The same token is useless at another resource.
    const elsewhere = new Request(RESOURCE_B, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    await assert.rejects(oauth.validateJwtAccessToken(as, elsewhere, RESOURCE_B, insecure));
  });

  it('sees a refused assertion as a challenge naming the spiffe_jwt scheme, and a policy refusal as an OAuth error', async (t) => {
    const { h, issuer, as } = await discovered(t);
    const client: oauth.Client = { client_id: SUBJECT };
    const wrongAudience = await h.svid({ aud: ['http://elsewhere'] });
    const refused = await oauth.clientCredentialsGrantRequest(
      as,
      client,
      spiffeJwt(wrongAudience),
      { resource: RESOURCE_A, scope: 'notes:read' },
      insecure,
    );
    await assert.rejects(oauth.processClientCredentialsResponse(as, client, refused), (err: unknown) => {
      assert.ok(err instanceof oauth.WWWAuthenticateChallengeError);
      assert.equal(err.status, 401);
      assert.deepEqual(err.cause, [{ scheme: 'spiffe_jwt', parameters: { realm: issuer } }]);
      return true;
    });

    const svid = await h.svid({ aud: [issuer] });
    const tooMuch = await oauth.clientCredentialsGrantRequest(
      as,
      client,
      spiffeJwt(svid),
      { resource: RESOURCE_A, scope: 'notes:admin' },
      insecure,
    );
    await assert.rejects(oauth.processClientCredentialsResponse(as, client, tooMuch), (err: unknown) => {
      assert.ok(err instanceof oauth.ResponseBodyError);
      assert.equal(err.error, 'invalid_scope');
      assert.equal(err.status, 400);
      return true;
    });
  });
});
