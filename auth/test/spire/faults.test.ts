import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { waitFor } from '@notegate/kit/testing';
import { decodeJwt } from 'jose';
import { WorkloadApiError } from '../../src/spiffe/workload-api/errors.js';
import { heldKids, streamedBundles } from '../support/provider-fixtures.js';
import {
  jwtAuthority,
  oauthError,
  SPIRE_WORKLOADS,
  spireClient,
  spireForTests,
  startSpire,
  startSpireAuthz,
} from '../support/spire.js';

const spire = await spireForTests();

describe('SPIRE: faults under a running authz', { skip: spire.skip }, () => {
  it('fails closed (503) only until the first bundle; serves through an agent restart and resubscribes', async (t) => {
    const deployment = await startSpire(t, spire);
    await deployment.stopAgent('authz');
    const bundles = streamedBundles(t, spireClient(t, deployment, 'authz'));
    const authz = await startSpireAuthz(t, bundles, 'allow-reuse-within-lifetime');
    const { svid } = await spireClient(t, deployment, 'agent').fetchJwtSvid({ audience: authz.issuer });

    const statuses: number[] = [];
    const token = async () => {
      const res = await authz.token(svid);
      statuses.push(res.status);
      return res;
    };
    const refused = await token();
    assert.equal(refused.status, 503, 'no bundle was ever received');
    assert.equal(await oauthError(refused), 'temporarily_unavailable');
    assert.match(String(authz.lastAudit().reason), /^temporarily_unavailable: .*no JWT bundle received/);

    await deployment.startAgent('authz');
    await bundles.ready(30_000);
    assert.equal((await token()).status, 200);

    // The agent goes away: authz keeps the last bundle while its stream retries.
    await deployment.stopAgent('authz');
    for (let i = 0; i < 3; i += 1) {
      assert.equal((await token()).status, 200);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    // A key appears while the agent is down; the restarted agent's stream must bring it.
    const kid = await jwtAuthority(deployment, 'prepare');
    assert.ok(!heldKids(bundles).includes(kid));
    await deployment.startAgent('authz');
    await waitFor('the resubscribed stream to bring the prepared key', () => heldKids(bundles).includes(kid));
    assert.equal((await token()).status, 200);
    assert.deepEqual(statuses, [503, 200, 200, 200, 200, 200]);
  });

  it('keeps handing out cached SVIDs while the server is stopped, until they expire; nothing hangs', async (t) => {
    // Short SVIDs, so that expiry comes within the test.
    const deployment = await startSpire(t, spire, { workloads: SPIRE_WORKLOADS, jwtSvidTtlS: 12 });
    const bundles = streamedBundles(t, spireClient(t, deployment, 'authz'));
    await bundles.ready(30_000);
    const authz = await startSpireAuthz(t, bundles, 'allow-reuse-within-lifetime');
    const agent = spireClient(t, deployment, 'agent');
    const { svid } = await agent.fetchJwtSvid({ audience: authz.issuer });
    assert.equal((await authz.token(svid)).status, 200);

    await deployment.stopServer();
    // Past half its lifetime the agent would mint a new one; with no server it keeps the one it has.
    const exp = Number(decodeJwt(svid).exp);
    await waitFor('well past half the SVID lifetime', () => Date.now() / 1000 > exp - 5);
    const cached = await agent.fetchJwtSvid({ audience: authz.issuer });
    assert.equal(cached.svid, svid, 'the cached SVID');
    assert.equal((await authz.token(cached.svid)).status, 200, 'authz still has its bundle');

    const isUnavailable = (err: unknown) => err instanceof WorkloadApiError && err.statusName === 'UNAVAILABLE';
    await assert.rejects(agent.fetchJwtSvid({ audience: 'http://another.spire.test' }), isUnavailable);
    await waitFor('the cached SVID to expire', () => Date.now() / 1000 > exp + 1);
    await assert.rejects(agent.fetchJwtSvid({ audience: authz.issuer }), isUnavailable);
  });

  it('in reject mode refuses the caching agent’s second token request, and says why', async (t) => {
    const deployment = await startSpire(t, spire, {
      workloads: [
        { name: 'agent', spiffeId: 'spiffe://example.org/agent', includeJti: true },
        { name: 'reader', spiffeId: 'spiffe://example.org/reader' },
        { name: 'authz', spiffeId: 'spiffe://example.org/authz' },
      ],
    });
    const bundles = streamedBundles(t, spireClient(t, deployment, 'authz'));
    await bundles.ready(30_000);
    const authz = await startSpireAuthz(t, bundles, 'reject');
    const agent = spireClient(t, deployment, 'agent');

    const first = (await agent.fetchJwtSvid({ audience: authz.issuer })).svid;
    assert.equal((await authz.token(first)).status, 200);
    const second = (await agent.fetchJwtSvid({ audience: authz.issuer })).svid;
    assert.equal(second, first, 'the SPIRE agent hands out the same SVID, jti included');
    const refused = await authz.token(second);
    assert.equal(refused.status, 401);
    assert.equal(await oauthError(refused), 'invalid_client');
    const reason = String(authz.lastAudit().reason);
    assert.match(reason, /^invalid_client: The client assertion has already been used\./);
    assert.match(reason, /the same SVID was presented twice\./);
    assert.match(reason, /needs --svid-replay allow-reuse-within-lifetime/);

    // An entry without -jwtSVIDIncludeJTI: SPIRE's SVIDs carry no jti at all.
    const reader = (await spireClient(t, deployment, 'reader').fetchJwtSvid({ audience: authz.issuer })).svid;
    assert.equal((await authz.token(reader)).status, 401);
    assert.match(String(authz.lastAudit().reason), /jti is missing \(required in reject mode\)\./);
  });
});
