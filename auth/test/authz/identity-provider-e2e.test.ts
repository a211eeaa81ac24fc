import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { describe, it } from 'node:test';
import { waitFor } from '@notegate/kit/testing';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import type { KeyType } from '../../src/identity-provider/key-ring.js';
import type { AuthzHarness } from '../support/authz-fixtures.js';
import { ISSUER, RESOURCE_A, startHarness } from '../support/authz-fixtures.js';
import { ManualClock } from '../support/manual-clock.js';
import { fastClient, heldKids, startProvider, streamedBundles, tempSocketDir } from '../support/provider-fixtures.js';

/**
 * The development identity provider over its real unix sockets: authz reads the JWT bundles from the
 * Workload API as the `authz` workload, the agent fetches its SVID as the `agent` workload.
 */
async function deployment(t: TestContext, keyType: KeyType = 'ec-p256') {
  const clock = new ManualClock(Date.now());
  const socketDir = await tempSocketDir(t);
  const provider = await startProvider(t, { socketDir, clock: clock.now, keyType });
  const bundles = streamedBundles(t, fastClient(t, provider.socketPath('authz')));
  await bundles.ready(5_000);
  const h = await startHarness(t, { manualClock: clock, bundles });
  const agent = fastClient(t, provider.socketPath('agent'));
  const fetchSvid = async () => (await agent.fetchJwtSvid({ audience: ISSUER })).svid;
  return { clock, provider, bundles, h, fetchSvid };
}

async function tokenFor(h: AuthzHarness, svid: string): Promise<Response> {
  return h.post(h.form(svid, { scope: 'notes:read notes:write' }));
}

describe('authz with the development identity provider', () => {
  it('issues a token for an SVID fetched over the Workload API, verifiable with the published key set', async (t) => {
    const { h, fetchSvid } = await deployment(t);
    const res = await tokenFor(h, await fetchSvid());
    assert.equal(res.status, 200);
    const body = (await res.json()) as { access_token: string };
    const jwks = createRemoteJWKSet(new URL('/jwks.json', h.authz.url));
    const { payload } = await jwtVerify(body.access_token, jwks, {
      issuer: ISSUER,
      audience: RESOURCE_A,
      typ: 'at+jwt',
    });
    assert.equal(payload.sub, 'spiffe://example.org/agent');
    assert.equal(payload.scope, 'notes:read notes:write');
    // The provider mints a fresh jti per fetch, so reject mode holds: the same SVID works once.
    assert.equal(h.lastAudit().decision, 'allow');
  });

  it('selects the key by kid across a rotation, and refuses the retired kid once it leaves the bundle', async (t) => {
    const { clock, provider, bundles, h, fetchSvid } = await deployment(t);
    const before = await fetchSvid();
    const spare = await fetchSvid();
    const oldKid = decodeProtectedHeader(before).kid;
    const newKid = await provider.rotate();
    await waitFor('the rotated bundle', () => {
      const kids = heldKids(bundles);
      return Array.isArray(kids) && kids.includes(newKid) && kids.includes(String(oldKid));
    });
    const after = await fetchSvid();
    assert.equal(decodeProtectedHeader(after).kid, newKid);
    assert.equal((await tokenFor(h, after)).status, 200);
    assert.equal((await tokenFor(h, before)).status, 200, 'an SVID of the retired key still verifies');

    assert.equal(provider.bundle().keys.length, 2);
    // Once every SVID of the retired key has expired, the provider drops it from the bundle.
    clock.advanceS(301);
    await provider.pruneRetiredKeys();
    await waitFor('the retired key to leave the bundle', () => {
      const kids = heldKids(bundles);
      return Array.isArray(kids) && kids.length === 1;
    });
    const res = await tokenFor(h, spare);
    assert.equal(res.status, 401);
    assert.match(String(h.lastAudit().reason), new RegExp(`kid ${String(oldKid)} is not in the bundle`));
  });

  it('accepts RS256 SVIDs from a provider with an RSA key', async (t) => {
    const { h, fetchSvid } = await deployment(t, 'rsa-2048');
    const svid = await fetchSvid();
    assert.equal(decodeProtectedHeader(svid).alg, 'RS256');
    assert.equal((await tokenFor(h, svid)).status, 200);
  });
});
