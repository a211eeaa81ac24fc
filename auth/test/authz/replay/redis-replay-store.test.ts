import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { describe, it } from 'node:test';
import { waitFor } from '@notegate/kit/testing';
import { Redis } from 'ioredis';
import { RedisReplayStore } from '../../../src/authz/replay/redis-replay-store.js';
import { ReplayStoreError } from '../../../src/authz/replay/replay-store.js';
import type { RedisServer } from '../../support/redis-server.js';
import { localRedisConnection, startRedisServer } from '../../support/redis-server.js';

const ISSUER = 'http://authz.test';

/** A store on `server`, closed after the test, ready once it has connected. */
async function storeOn(
  t: TestContext,
  server: RedisServer,
  options: { namespace?: string; capacity?: number; events?: string[] } = {},
) {
  const events = options.events ?? [];
  const store = new RedisReplayStore({
    connection: localRedisConnection(server.port),
    namespace: options.namespace ?? ISSUER,
    ...(options.capacity === undefined ? {} : { capacity: options.capacity }),
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

describe('RedisReplayStore on a real redis-server', () => {
  it('records a first use, counts each later one, and keeps the key until its deadline', async (t) => {
    const server = await startRedisServer(t);
    const store = await storeOn(t, server);
    const untilMs = Date.now() + 60_000;
    assert.deepEqual(await store.record('spiffe://example.org/agent jabc', untilMs), { kind: 'first' });
    assert.deepEqual(await store.record('spiffe://example.org/agent jabc', untilMs), { kind: 'seen', uses: 2 });
    assert.deepEqual(await store.record('spiffe://example.org/agent jabc', untilMs), { kind: 'seen', uses: 3 });
    const redis = inspector(t, server);
    const key = `notegate:replay:${ISSUER} spiffe://example.org/agent jabc`;
    const ttlMs = await redis.pttl(key);
    assert.ok(ttlMs > 50_000 && ttlMs <= 60_000, `PTTL ${ttlMs} follows the deadline`);
    // A later deadline for the same key extends it; an earlier one does not shorten it.
    await store.record('spiffe://example.org/agent jabc', Date.now() + 120_000);
    assert.ok((await redis.pttl(key)) > 100_000);
    await store.record('spiffe://example.org/agent jabc', Date.now() + 1_000);
    assert.ok((await redis.pttl(key)) > 100_000);
    assert.equal(await store.liveEntries(), 1);
  });

  it('keeps issuers apart: one key under two namespaces is two entries', async (t) => {
    const server = await startRedisServer(t);
    const a = await storeOn(t, server, { namespace: 'http://a.test' });
    const b = await storeOn(t, server, { namespace: 'http://b.test' });
    const untilMs = Date.now() + 60_000;
    assert.equal((await a.record('sub jone', untilMs)).kind, 'first');
    assert.equal((await b.record('sub jone', untilMs)).kind, 'first');
    assert.equal((await a.record('sub jone', untilMs)).kind, 'seen');
    assert.deepEqual((await inspector(t, server).keys('notegate:replay:*')).sort(), [
      'notegate:replay:http://a.test sub jone',
      'notegate:replay:http://b.test sub jone',
    ]);
  });

  it('refuses a new key when the database holds capacity keys, still recognises a replay, and has room again after expiry', async (t) => {
    const server = await startRedisServer(t);
    const store = await storeOn(t, server, { capacity: 3 });
    const soonMs = Date.now() + 300;
    assert.equal((await store.record('k1', soonMs)).kind, 'first');
    assert.equal((await store.record('k2', Date.now() + 60_000)).kind, 'first');
    assert.equal((await store.record('k3', Date.now() + 60_000)).kind, 'first');
    assert.deepEqual(await store.record('k4', Date.now() + 60_000), { kind: 'full' });
    assert.deepEqual(await store.record('k2', Date.now() + 60_000), { kind: 'seen', uses: 2 });
    assert.equal(await store.liveEntries(), 3, 'a refused key is not written');
    // Redis reclaims k1 after its deadline; then there is room for one more.
    await waitFor('k1 to expire', async () => (await store.liveEntries()) === 2);
    assert.equal((await store.record('k4', Date.now() + 60_000)).kind, 'first');
  });

  it('fails closed at once without a server, within the time bound when it hangs, and recovers by itself', async (t) => {
    const server = await startRedisServer(t);
    const events: string[] = [];
    const store = await storeOn(t, server, { events });
    const untilMs = Date.now() + 60_000;
    assert.equal((await store.record('before', untilMs)).kind, 'first');

    server.pause();
    assert.equal(await failureOf(store.record('while-frozen', untilMs)), 'timeout');
    server.resume();

    await server.stop();
    await waitFor('the lost connection to be noticed', () => events.some((event) => /connection lost/.test(event)));
    assert.equal(await failureOf(store.record('while-down', untilMs)), 'unreachable');
    await assert.rejects(store.liveEntries(), ReplayStoreError);

    await server.restart();
    const result = await waitFor(
      'the store to answer again',
      async () => (await failureOf(store.record('after', untilMs))) === 'none',
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
    const attempt = store.record('refused', Date.now() + 60_000);
    await assert.rejects(
      attempt,
      (err: unknown) => err instanceof ReplayStoreError && err.failure === 'error' && /OOM/.test(err.message),
    );
    await redis.config('SET', 'maxmemory', '0');
    assert.equal(await redis.exists(`notegate:replay:${ISSUER} refused`), 0);
    assert.equal((await store.record('refused', Date.now() + 60_000)).kind, 'first');
  });
});
