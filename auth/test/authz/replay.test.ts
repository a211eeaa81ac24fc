import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { reservePort } from '@notegate/kit/http';
import { waitFor } from '@notegate/kit/testing';
import { RedisReplayStore } from '../../src/authz/replay/redis-replay-store.js';
import { ReplayCache } from '../../src/authz/replay/replay-cache.js';
import { TOKEN_ENDPOINT_ERRORS } from '../../src/errors/token-endpoint-errors.js';
import type { AuthzHarness } from '../support/authz-fixtures.js';
import { ISSUER, startHarness } from '../support/authz-fixtures.js';
import { ManualClock, START_MS } from '../support/manual-clock.js';
import { localRedisConnection, NEEDS_REDIS_SERVER, startRedisServer } from '../support/redis-server.js';
import { SUBJECT, signToken, testKey } from '../support/svid-fixtures.js';

/** Granted by the harness's policy, besides SUBJECT. */
const READER = 'spiffe://example.org/reader';
/** In the trust domain, but not in the policy. */
const STRANGER = 'spiffe://example.org/stranger';

describe('replay, reject mode (default)', () => {
  it('refuses the second use of an SVID with 401 invalid_client and names the jti in the audit line', async (t) => {
    const h = await startHarness(t);
    const form = h.form(await h.svid({ jti: 'once-only' }));
    assert.equal((await h.post(form)).status, 200);
    const again = await h.post(form);
    assert.equal(again.status, 401);
    assert.deepEqual(await again.json(), {
      error: 'invalid_client',
      error_description: TOKEN_ENDPOINT_ERRORS.ERR_SVID_REPLAYED.description,
    });
    const line = h.lastAudit();
    assert.equal(line.spiffe_id, SUBJECT);
    assert.match(
      String(line.reason),
      /^invalid_client: .*jti "once-only" of spiffe:\/\/example\.org\/agent already used/,
    );
    assert.equal(line.svid_jti, 'once-only');
  });

  it('tells the operator that the same SVID was presented twice and which mode suits a caching source', async (t) => {
    const h = await startHarness(t);
    const form = h.form(await h.svid({ jti: 'cached' }));
    assert.equal((await h.post(form)).status, 200);
    assert.equal((await h.post(form)).status, 401);
    const reason = String(h.lastAudit().reason);
    assert.match(reason, /the same SVID was presented twice\./);
    assert.match(reason, /caches SVIDs \(a SPIRE agent does\) needs --svid-replay allow-reuse-within-lifetime/);
    assert.equal((await h.post(form)).status, 401);
    assert.match(String(h.lastAudit().reason), /\(use 3\): the same SVID was presented 3 times\./);
  });

  it('says why a jti is needed when an SVID without one meets reject mode (SPIRE mints none by default)', async (t) => {
    const h = await startHarness(t);
    assert.equal((await h.post(h.form(await h.svid({ jti: undefined })))).status, 401);
    assert.match(
      String(h.lastAudit().reason),
      /jti is missing \(required in reject mode\)\. .* needs --svid-replay allow-reuse-within-lifetime\)$/,
    );
  });

  it('records only assertions that passed signature, audience and lifetime checks', async (t) => {
    const h = await startHarness(t);
    const forged = await signToken(
      testKey('P-256', h.key.kid).privateKey,
      { alg: 'ES256', kid: h.key.kid },
      h.claims({ jti: 'a' }),
    );
    assert.equal((await h.post(h.form(forged))).status, 401);
    assert.equal((await h.post(h.form(await h.svid({ jti: 'b', aud: 'http://elsewhere' })))).status, 401);
    assert.equal((await h.post(h.form(await h.svid({ jti: 'c', exp: h.clock.nowS + 900 })))).status, 401);
    assert.equal(await h.authz.replayStore.liveEntries(), 0);
    for (const jti of ['a', 'b', 'c']) assert.equal((await h.post(h.form(await h.svid({ jti })))).status, 200);
  });

  it('takes no room for an assertion the policy refuses, so a valid SVID of an ungranted workload cannot fill the store', async (t) => {
    const clock = new ManualClock();
    // Room for six: three for each of the two granted identities.
    const cache = new ReplayCache({ clock: clock.now, capacity: 6 });
    const h = await startHarness(t, { manualClock: clock, replayStore: cache });
    for (let i = 0; i < 10; i++) {
      const flood = await h.post(h.form(await h.svid({ sub: STRANGER })));
      assert.equal(flood.status, 400);
      assert.equal(((await flood.json()) as { error: string }).error, 'unauthorized_client');
    }
    assert.equal(cache.size, 0);
    for (let i = 0; i < 3; i++) assert.equal((await h.post(h.form(await h.svid()))).status, 200);
  });

  it('does not consume an assertion that a policy check refuses: sent again with a granted scope, it gets its token once', async (t) => {
    const h = await startHarness(t);
    const svid = await h.svid({ jti: 'kept' });
    assert.equal((await h.post(h.form(svid, { scope: 'notes:admin' }))).status, 400);
    assert.equal(await h.authz.replayStore.liveEntries(), 0);
    assert.equal((await h.post(h.form(svid))).status, 200);
    const again = await h.post(h.form(svid));
    assert.equal(again.status, 401);
    assert.match(String(h.lastAudit().reason), /already used/);
  });

  it('answers a replayed assertion with the policy refusal first, as the order of the checks says', async (t) => {
    const h = await startHarness(t);
    const svid = await h.svid({ jti: 'used' });
    assert.equal((await h.post(h.form(svid))).status, 200);
    const res = await h.post(h.form(svid, { scope: 'notes:admin' }));
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as { error: string }).error, 'invalid_scope');
  });

  it('holds each SPIFFE ID to its share of the store: a granted workload that floods gets 503, the others keep getting tokens', async (t) => {
    const clock = new ManualClock();
    // Two identities in the policy: each may hold half of the four entries.
    const cache = new ReplayCache({ clock: clock.now, capacity: 4 });
    const h = await startHarness(t, { manualClock: clock, replayStore: cache });
    for (let i = 0; i < 2; i++) assert.equal((await h.post(h.form(await h.svid({ sub: READER })))).status, 200);
    const over = await h.post(h.form(await h.svid({ sub: READER })));
    assert.equal(over.status, 503);
    assert.deepEqual(await over.json(), {
      error: 'temporarily_unavailable',
      error_description: TOKEN_ENDPOINT_ERRORS.ERR_REPLAY_SHARE_FULL.description,
    });
    assert.match(
      String(h.lastAudit().reason),
      /^temporarily_unavailable: .*\(spiffe:\/\/example\.org\/reader holds 2 live entries, its share of the memory replay store's 4\)$/,
    );
    for (let i = 0; i < 2; i++) assert.equal((await h.post(h.form(await h.svid()))).status, 200);
    h.clock.advanceS(330);
    assert.equal((await h.post(h.form(await h.svid({ sub: READER })))).status, 200, 'the share is back after expiry');
  });

  it('keys the cache on (sub, jti): the same jti for another workload is a different entry', async (t) => {
    const h = await startHarness(t);
    assert.equal((await h.post(h.form(await h.svid({ jti: 'shared' })))).status, 200);
    const reader = h.form(await h.svid({ jti: 'shared', sub: 'spiffe://example.org/reader' }));
    assert.equal((await h.post(reader)).status, 200);
  });

  it('answers 503 once 10,000 live entries are held, never evicting them, and recovers when they expire', async (t) => {
    const clock = new ManualClock();
    const cache = new ReplayCache({ clock: clock.now });
    const h = await startHarness(t, { manualClock: clock, replayStore: cache });
    // 9,999 real entries from earlier assertions of another workload, alive until exp + 30 s.
    for (let i = 0; i < 9_999; i++) {
      cache.record({ owner: READER, id: `jfill-${i}`, untilMs: START_MS + 330_000 }, Number.MAX_SAFE_INTEGER);
    }
    const last = h.form(await h.svid({ jti: 'ten-thousandth' }));
    assert.equal((await h.post(last)).status, 200);
    assert.equal(cache.size, 10_000);

    const full = await h.post(h.form(await h.svid({ jti: 'one-too-many' })));
    assert.equal(full.status, 503);
    assert.equal(full.headers.get('cache-control'), 'no-store');
    assert.equal(full.headers.get('www-authenticate'), null);
    assert.deepEqual(await full.json(), {
      error: 'temporarily_unavailable',
      error_description: TOKEN_ENDPOINT_ERRORS.ERR_REPLAY_STORE_FULL.description,
    });
    assert.match(String(h.lastAudit().reason), /^temporarily_unavailable: .*10000 live entries/);
    assert.equal(cache.size, 10_000);
    // A replay is still a replay when the cache is full (its row comes first).
    assert.equal((await h.post(last)).status, 401);

    h.clock.advanceS(330);
    assert.equal((await h.post(h.form(await h.svid({ jti: 'after-expiry' })))).status, 200);
    assert.equal(cache.size, 1);
  });
});

describe('replay, reject mode, on a Redis store shared by two replicas', NEEDS_REDIS_SERVER, () => {
  it('takes no key for an ungranted workload and holds a flooding granted one to its share across replicas', async (t) => {
    const redis = await startRedisServer(t);
    const clock = new ManualClock(Date.now());
    const replicas: AuthzHarness[] = [];
    for (const name of ['a', 'b']) {
      const events: string[] = [];
      // Room for 6 keys: a share of 3 per granted identity (the share sets count too: the bound errs safe).
      const store = new RedisReplayStore({
        connection: localRedisConnection(redis.port),
        namespace: ISSUER,
        capacity: 6,
        clock: clock.now,
        onEvent: (event) => events.push(event),
      });
      t.after(() => store.close());
      await waitFor(`store ${name} to connect`, () => events.some((event) => event.endsWith(': connected')));
      const key = replicas[0]?.key;
      replicas.push(await startHarness(t, { manualClock: clock, replayStore: store, ...(key && { key }) }));
    }
    const [a, b] = replicas as [AuthzHarness, AuthzHarness];
    for (const h of [a, b, a, b]) assert.equal((await h.post(h.form(await h.svid({ sub: STRANGER })))).status, 400);
    assert.equal(await a.authz.replayStore.liveEntries(), 0, 'the refused workload wrote nothing');
    const statuses = [];
    for (const h of [a, b, a, b]) statuses.push((await h.post(h.form(await h.svid({ sub: READER })))).status);
    assert.deepEqual(statuses, [200, 200, 200, 503]);
    assert.match(String(b.lastAudit().reason), /holds 3 live entries, its share of the redis replay store's 6/);
    assert.equal((await b.post(b.form(await b.svid()))).status, 200, 'the other identity still has room');
  });
});

describe('replay, allow-reuse-within-lifetime mode', () => {
  it('accepts a reused SVID and counts its uses in the audit line', async (t) => {
    const h = await startHarness(t, { replayMode: 'allow-reuse-within-lifetime' });
    const form = h.form(await h.svid({ jti: 'cached' }));
    for (const uses of [1, 2, 3]) {
      assert.equal((await h.post(form)).status, 200);
      const line = h.lastAudit();
      assert.equal(line.svid_uses, uses);
      assert.match(String(line.reason), /svid_jti=cached/);
    }
  });

  it('accepts an SVID without jti, as a SPIRE agent mints it, and still sees its reuse', async (t) => {
    const h = await startHarness(t, { replayMode: 'allow-reuse-within-lifetime' });
    const form = h.form(await h.svid({ jti: undefined }));
    assert.equal((await h.post(form)).status, 200);
    assert.equal((await h.post(form)).status, 200);
    const line = h.lastAudit();
    assert.equal(line.svid_uses, 2);
    assert.equal(line.svid_jti, null);
    assert.match(String(line.reason), /svid_jti=-/);
  });

  it('still validates a jti that is present', async (t) => {
    const h = await startHarness(t, { replayMode: 'allow-reuse-within-lifetime' });
    const res = await h.post(h.form(await h.svid({ jti: 'x'.repeat(257) })));
    assert.equal(res.status, 401);
  });

  it('keeps issuing when the use counter is full, with svid_uses null', async (t) => {
    const clock = new ManualClock();
    const cache = new ReplayCache({ clock: clock.now, capacity: 1 });
    const h = await startHarness(t, {
      manualClock: clock,
      replayMode: 'allow-reuse-within-lifetime',
      replayStore: cache,
    });
    assert.equal((await h.post(h.form(await h.svid()))).status, 200);
    assert.equal((await h.post(h.form(await h.svid()))).status, 200);
    assert.equal(h.lastAudit().svid_uses, null);
  });

  it('counts the uses of one SVID across replicas that share a Redis store', NEEDS_REDIS_SERVER, async (t) => {
    const redis = await startRedisServer(t);
    const clock = new ManualClock(Date.now());
    const harnesses: AuthzHarness[] = [];
    for (const name of ['a', 'b']) {
      const events: string[] = [];
      const store = new RedisReplayStore({
        connection: localRedisConnection(redis.port),
        namespace: ISSUER,
        clock: clock.now,
        onEvent: (event) => events.push(event),
      });
      t.after(() => store.close());
      await waitFor(`store ${name} to connect`, () => events.some((event) => event.endsWith(': connected')));
      // One bundle key for both, as replicas of one service trust the same identity provider.
      const key = harnesses[0]?.key;
      harnesses.push(
        await startHarness(t, {
          manualClock: clock,
          replayMode: 'allow-reuse-within-lifetime',
          replayStore: store,
          ...(key && { key }),
        }),
      );
    }
    const [a, b] = harnesses as [AuthzHarness, AuthzHarness];
    const assertion = await a.svid({ jti: 'cached' });
    assert.equal((await a.post(a.form(assertion))).status, 200);
    assert.equal(a.lastAudit().svid_uses, 1);
    assert.equal((await b.post(b.form(assertion))).status, 200);
    assert.equal(b.lastAudit().svid_uses, 2);
  });

  it('keeps issuing when the shared store cannot be reached, with svid_uses null: this mode refuses nothing', async (t) => {
    const clock = new ManualClock(Date.now());
    const store = new RedisReplayStore({
      connection: localRedisConnection(await reservePort()),
      namespace: ISSUER,
      clock: clock.now,
    });
    t.after(() => store.close());
    const h = await startHarness(t, {
      manualClock: clock,
      replayMode: 'allow-reuse-within-lifetime',
      replayStore: store,
    });
    assert.equal((await h.post(h.form(await h.svid()))).status, 200);
    assert.equal(h.lastAudit().svid_uses, null);
  });
});
