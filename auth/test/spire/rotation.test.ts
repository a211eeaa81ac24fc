import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { waitFor } from '@notegate/kit/testing';
import { heldKids, streamedBundles } from '../support/provider-fixtures.js';
import { jwtAuthority, kidOf, spireClient, spireForTests, startSpire, startSpireAuthz } from '../support/spire.js';

const spire = await spireForTests();

describe('SPIRE: JWT authority rotation forced on the running server', { skip: spire.skip }, () => {
  it('issues tokens throughout prepare and activate; once the old authority is revoked its SVID is refused', async (t) => {
    const deployment = await startSpire(t, spire);
    const bundles = streamedBundles(t, spireClient(t, deployment, 'authz'));
    await bundles.ready(30_000);
    const authz = await startSpireAuthz(t, bundles, 'allow-reuse-within-lifetime');
    const agent = spireClient(t, deployment, 'agent');
    // Every key set the stream sends, as sorted kids (SPIRE sends a message whenever the bytes change).
    const keySets: string[] = [];
    spireClient(t, deployment, 'authz').watchJwtBundles({
      onBundles: (message) => {
        const jwks = JSON.parse(Buffer.from(message.get('spiffe://example.org') ?? []).toString('utf8'));
        keySets.push(
          jwks.keys
            .map((key: { kid: string }) => key.kid)
            .sort()
            .join(','),
        );
      },
      onEnd: () => undefined,
    });

    // Token requests in a loop, each with the SVID the SPIRE agent hands out at that moment.
    const requests: { kid: string; status: number }[] = [];
    let stopped = false;
    const loop = (async () => {
      while (!stopped) {
        const { svid } = await agent.fetchJwtSvid({ audience: authz.issuer });
        requests.push({ kid: kidOf(svid), status: (await authz.token(svid)).status });
      }
    })();
    const requestsSoFar = (count: number) => waitFor(`${count} token requests`, () => requests.length >= count);
    await requestsSoFar(3);
    const oldSvid = (await agent.fetchJwtSvid({ audience: authz.issuer })).svid;
    const oldKid = kidOf(oldSvid);

    const newKid = await jwtAuthority(deployment, 'prepare');
    await waitFor('the prepared key in authz’s bundle', () => {
      const kids = heldKids(bundles);
      return Array.isArray(kids) && kids.includes(newKid) && kids.includes(oldKid);
    });
    await requestsSoFar(requests.length + 3);
    assert.equal(await jwtAuthority(deployment, 'activate', newKid), newKid);
    await requestsSoFar(requests.length + 3);
    // Tainting makes the SPIRE agent drop the SVIDs the old key signed: the next fetch gets a new one.
    assert.equal(await jwtAuthority(deployment, 'taint', oldKid), oldKid);
    await waitFor('an SVID signed by the new authority', () => requests.some((r) => r.kid === newKid));
    await requestsSoFar(requests.length + 3);
    stopped = true;
    await loop;

    assert.deepEqual(
      requests.filter((r) => r.status !== 200),
      [],
      `0 failures in ${requests.length} token requests`,
    );
    assert.ok(requests.some((r) => r.kid === oldKid) && requests.some((r) => r.kid === newKid), 'across the rotation');
    assert.equal((await authz.token(oldSvid)).status, 200, 'an SVID of a tainted authority still verifies');

    assert.equal(await jwtAuthority(deployment, 'revoke', oldKid), oldKid);
    await waitFor('the revoked key to leave authz’s bundle', () => {
      const kids = heldKids(bundles);
      return Array.isArray(kids) && !kids.includes(oldKid);
    });
    const refused = await authz.token(oldSvid);
    assert.equal(refused.status, 401);
    assert.deepEqual(await refused.json(), {
      error: 'invalid_client',
      error_description: 'The client assertion kid is not in the trust bundle.',
    });
    assert.match(String(authz.lastAudit().reason), new RegExp(`kid ${oldKid} is not in the bundle of example\\.org`));
    const fresh = (await agent.fetchJwtSvid({ audience: authz.issuer })).svid;
    assert.equal(kidOf(fresh), newKid);
    assert.equal((await authz.token(fresh)).status, 200);
    // The set changed with prepare and with revoke, never with activate or taint.
    await waitFor('the revoked set on the watching stream', () => keySets.at(-1) === newKid);
    const changes = keySets.filter((set, i) => set !== keySets[i - 1]);
    assert.deepEqual(changes, [oldKid, [oldKid, newKid].sort().join(','), newKid]);
  });
});
