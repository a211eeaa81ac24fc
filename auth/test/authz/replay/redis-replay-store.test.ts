import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { describe, it } from 'node:test';
import { reservePort } from '@notegate/kit/http';
import { waitFor } from '@notegate/kit/testing';
import { Redis } from 'ioredis';
import { RedisReplayStore } from '../../../src/authz/replay/redis-replay-store.js';
import type { ReplayEntry } from '../../../src/authz/replay/replay-store.js';
import { ReplayStoreError } from '../../../src/authz/replay/replay-store.js';
import type { RedisServer } from '../../support/redis-server.js';
import { localRedisConnection, NEEDS_REDIS_SERVER, startRedisServer } from '../../support/redis-server.js';

const ISSUER = 'http://authz.test';
const AGENT = 'spiffe://example.org/agent';
const READER = 'spiffe://example.org/reader';
/** An entry of `owner` (the agent by default), kept until `untilMs`. */
const use = (id: string, untilMs: number, owner = AGENT): ReplayEntry => ({ owner, id, untilMs });
/** For the cases about the whole capacity: a share that never binds. */
const NO_SHARE_BOUND = Number.MAX_SAFE_INTEGER;

/** A store on `server`, closed after the test, ready once it has connected. */
async function storeOn(
  t: TestContext,
  server: RedisServer,
  options: { namespace?: string; capacity?: number; events?: string[]; requireNoEviction?: boolean } = {},
) {
  const events = options.events ?? [];
  const store = new RedisReplayStore({
    connection: localRedisConnection(server.port),
    namespace: options.namespace ?? ISSUER,
    ...(options.capacity === undefined ? {} : { capacity: options.capacity }),
    ...(options.requireNoEviction === undefined ? {} : { requireNoEviction: options.requireNoEviction }),
    onEvent: (message) => events.push(message),
  });
  t.after(() => store.close());
  await waitFor('the store to connect', () => events.some((event) => event.endsWith(': connected')));
  return store;
}

/** A plain client on the same server, to look at what the store wrote. */
function inspector(t: TestContext, server: RedisServer): Redis {
  const redis = new Redis(server.port, '127.0.0.1', { lazyConnect: false });
  t.after(() => redis.disconnect());
  return redis;
}

const failureOf = async (attempt: Promise<unknown>) => {
  try {
    await attempt;
  } catch (err) {
    if (err instanceof ReplayStoreError) return err.failure;
    throw err;
  }
  return 'none';
};

describe('RedisReplayStore on a real redis-server', NEEDS_REDIS_SERVER, () => {
  it('records a first use, counts each later one, and keeps the key until its deadline', async (t) => {
    const server = await startRedisServer(t);
    const store = await storeOn(t, server);
    const untilMs = Date.now() + 60_000;
    assert.deepEqual(await store.record(use('jabc', untilMs), NO_SHARE_BOUND), { kind: 'first' });
    assert.deepEqual(await store.record(use('jabc', untilMs), NO_SHARE_BOUND), { kind: 'seen', uses: 2 });
    assert.deepEqual(await store.record(use('jabc', untilMs), NO_SHARE_BOUND), { kind: 'seen', uses: 3 });
    const redis = inspector(t, server);
    const key = `notegate:replay:${ISSUER} spiffe://example.org/agent jabc`;
    const ttlMs = await redis.pttl(key);
    assert.ok(ttlMs > 50_000 && ttlMs <= 60_000, `PTTL ${ttlMs} follows the deadline`);
    // A later deadline for the same key extends it; an earlier one does not shorten it.
    await store.record(use('jabc', Date.now() + 120_000), NO_SHARE_BOUND);
    assert.ok((await redis.pttl(key)) > 100_000);
    await store.record(use('jabc', Date.now() + 1_000), NO_SHARE_BOUND);
    assert.ok((await redis.pttl(key)) > 100_000);
    assert.equal(await store.liveEntries(), 2, "the entry and its owner's share set");
  });

  it('keeps issuers apart: one key under two namespaces is two entries', async (t) => {
    const server = await startRedisServer(t);
    const a = await storeOn(t, server, { namespace: 'http://a.test' });
    const b = await storeOn(t, server, { namespace: 'http://b.test' });
    const untilMs = Date.now() + 60_000;
    assert.equal((await a.record(use('jone', untilMs), NO_SHARE_BOUND)).kind, 'first');
    assert.equal((await b.record(use('jone', untilMs), NO_SHARE_BOUND)).kind, 'first');
    assert.equal((await a.record(use('jone', untilMs), NO_SHARE_BOUND)).kind, 'seen');
    assert.deepEqual((await inspector(t, server).keys('notegate:replay:*')).sort(), [
      `notegate:replay:http://a.test ${AGENT} jone`,
      `notegate:replay:http://b.test ${AGENT} jone`,
    ]);
  });

  it('refuses a new key when the database holds capacity keys, still recognises a replay, and has room again after expiry', async (t) => {
    const server = await startRedisServer(t);
    // Three entries of one owner and its share set.
    const store = await storeOn(t, server, { capacity: 4 });
    const soonMs = Date.now() + 300;
    assert.equal((await store.record(use('k1', soonMs), NO_SHARE_BOUND)).kind, 'first');
    assert.equal((await store.record(use('k2', Date.now() + 60_000), NO_SHARE_BOUND)).kind, 'first');
    assert.equal((await store.record(use('k3', Date.now() + 60_000), NO_SHARE_BOUND)).kind, 'first');
    assert.deepEqual(await store.record(use('k4', Date.now() + 60_000), NO_SHARE_BOUND), { kind: 'full' });
    assert.deepEqual(await store.record(use('k2', Date.now() + 60_000), NO_SHARE_BOUND), { kind: 'seen', uses: 2 });
    assert.equal(await store.liveEntries(), 4, 'a refused key is not written');
    // Redis reclaims k1 after its deadline; then there is room for one more.
    await waitFor('k1 to expire', async () => (await store.liveEntries()) === 3);
    assert.equal((await store.record(use('k4', Date.now() + 60_000), NO_SHARE_BOUND)).kind, 'first');
  });

  it("refuses an owner's new entry beyond its share, across two stores, and gives it back as entries expire", async (t) => {
    const server = await startRedisServer(t);
    const a = await storeOn(t, server, { capacity: 100 });
    const b = await storeOn(t, server, { capacity: 100 });
    const soonMs = Date.now() + 300;
    assert.equal((await a.record(use('r1', soonMs, READER), 3)).kind, 'first');
    assert.equal((await b.record(use('r2', Date.now() + 60_000, READER), 3)).kind, 'first');
    assert.equal((await a.record(use('r3', Date.now() + 60_000, READER), 3)).kind, 'first');
    assert.deepEqual(await b.record(use('r4', Date.now() + 60_000, READER), 3), { kind: 'share_full' });
    assert.deepEqual(await b.record(use('r2', Date.now() + 60_000, READER), 3), { kind: 'seen', uses: 2 });
    assert.equal((await a.record(use('a1', Date.now() + 60_000), 3)).kind, 'first', 'another owner has room');
    const redis = inspector(t, server);
    assert.equal(await redis.exists(`notegate:replay:${ISSUER} ${READER} r4`), 0, 'a refused key is not written');
    const shareTtlMs = await redis.pttl(`notegate:replay-share:${ISSUER} ${READER}`);
    assert.ok(shareTtlMs > 50_000 && shareTtlMs <= 60_000, `the share lives as long as its last entry (${shareTtlMs})`);
    await waitFor(
      'r1 to leave the share',
      async () => (await a.record(use('r4', Date.now() + 60_000, READER), 3)).kind === 'first',
    );
    assert.deepEqual(await a.record(use('r5', Date.now() + 60_000, READER), 3), { kind: 'share_full' });
  });

  it('fails closed at once without a server, within the time bound when it hangs, and recovers by itself', async (t) => {
    const server = await startRedisServer(t);
    const events: string[] = [];
    const store = await storeOn(t, server, { events });
    const untilMs = Date.now() + 60_000;
    assert.equal((await store.record(use('before', untilMs), NO_SHARE_BOUND)).kind, 'first');

    server.pause();
    assert.equal(await failureOf(store.record(use('while-frozen', untilMs), NO_SHARE_BOUND)), 'timeout');
    server.resume();

    await server.stop();
    await waitFor('the lost connection to be noticed', () => events.some((event) => /connection lost/.test(event)));
    assert.equal(await failureOf(store.record(use('while-down', untilMs), NO_SHARE_BOUND)), 'unreachable');
    await assert.rejects(store.liveEntries(), ReplayStoreError);

    await server.restart();
    const result = await waitFor(
      'the store to answer again',
      async () => (await failureOf(store.record(use('after', untilMs), NO_SHARE_BOUND))) === 'none',
      10_000,
    );
    assert.equal(result, true);
    assert.ok(events.filter((event) => event.endsWith(': connected')).length >= 2, events.join('\n'));
  });

  it('fails closed on an error reply, naming it, and records nothing', async (t) => {
    const server = await startRedisServer(t);
    const store = await storeOn(t, server);
    const redis = inspector(t, server);
    // No memory left and no eviction: Redis answers writes with an OOM error.
    await redis.config('SET', 'maxmemory-policy', 'noeviction');
    await redis.config('SET', 'maxmemory', '1');
    const attempt = store.record(use('refused', Date.now() + 60_000), NO_SHARE_BOUND);
    await assert.rejects(
      attempt,
      (err: unknown) => err instanceof ReplayStoreError && err.failure === 'error' && /OOM/.test(err.message),
    );
    await redis.config('SET', 'maxmemory', '0');
    assert.equal(await redis.exists(`notegate:replay:${ISSUER} ${AGENT} refused`), 0);
    assert.equal((await store.record(use('refused', Date.now() + 60_000), NO_SHARE_BOUND)).kind, 'first');
  });

  it('refuses every record on a server that may evict keys, naming the setting, and takes it once fixed', async (t) => {
    const server = await startRedisServer(t, ['--maxmemory-policy', 'allkeys-lru']);
    const events: string[] = [];
    const store = await storeOn(t, server, { events });
    const untilMs = Date.now() + 60_000;
    await assert.rejects(
      store.record(use('while-evicting', untilMs), NO_SHARE_BOUND),
      (err: unknown) =>
        err instanceof ReplayStoreError && /^maxmemory-policy is allkeys-lru: .*needs noeviction/.test(err.message),
    );
    assert.ok(
      events.some((event) => /: maxmemory-policy is allkeys-lru: .*token requests get 503 until it is$/.test(event)),
      events.join('\n'),
    );
    const redis = inspector(t, server);
    assert.equal(await redis.exists(`notegate:replay:${ISSUER} ${AGENT} while-evicting`), 0, 'nothing written');
    await redis.config('SET', 'maxmemory-policy', 'noeviction');
    await waitFor(
      'the fixed setting to be taken',
      async () => (await failureOf(store.record(use('after-fix', untilMs), NO_SHARE_BOUND))) === 'none',
    );
    assert.ok(
      events.some((event) => event.endsWith(': maxmemory-policy is noeviction')),
      events.join('\n'),
    );
  });

  it('reads the policy again on reconnect: a server back with an evicting policy is refused', async (t) => {
    const server = await startRedisServer(t);
    const events: string[] = [];
    const store = await storeOn(t, server, { events });
    const untilMs = Date.now() + 60_000;
    assert.equal((await store.record(use('before', untilMs), NO_SHARE_BOUND)).kind, 'first');
    await server.restart(['--maxmemory-policy', 'volatile-ttl']);
    await waitFor('the reconnect to find the new policy', () =>
      events.some((event) => /maxmemory-policy is volatile-ttl/.test(event)),
    );
    await assert.rejects(store.record(use('after', untilMs), NO_SHARE_BOUND), /maxmemory-policy is volatile-ttl/);
  });

  it('only reports an evicting server when it need not refuse (allow-reuse-within-lifetime counts uses)', async (t) => {
    const server = await startRedisServer(t, ['--maxmemory-policy', 'allkeys-lfu']);
    const events: string[] = [];
    const store = await storeOn(t, server, { events, requireNoEviction: false });
    assert.equal((await store.record(use('counted', Date.now() + 60_000), NO_SHARE_BOUND)).kind, 'first');
    await waitFor('the report', () =>
      events.some((event) => /allkeys-lfu: evicted entries make the svid_uses/.test(event)),
    );
  });

  it("gives the first answer about the server's policy at start, and nothing when no server answers", async (t) => {
    const server = await startRedisServer(t, ['--maxmemory-policy', 'allkeys-lru']);
    const store = await storeOn(t, server);
    assert.deepEqual(await store.firstEvictionCheck(5_000), { kind: 'evicting', policy: 'allkeys-lru' });
    const nowhere = new RedisReplayStore({ connection: localRedisConnection(await reservePort()), namespace: ISSUER });
    t.after(() => nowhere.close());
    assert.equal(await nowhere.firstEvictionCheck(50), undefined);
  });
});
