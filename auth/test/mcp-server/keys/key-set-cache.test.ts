import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { describe, it } from 'node:test';
import { closeServer, listen } from '@notegate/kit/http';
import { waitFor } from '@notegate/kit/testing';
import { ProtocolError } from '../../../src/errors/protocol-error.js';
import { fetchKeySet } from '../../../src/mcp-server/keys/fetch-key-set.js';
import { KEY_SET_MAX_AGE_MS, KeySetCache } from '../../../src/mcp-server/keys/key-set-cache.js';
import {
  type KeySet,
  type PublicJwk,
  parseKeySet,
  reconcileKeySet,
} from '../../../src/mcp-server/keys/key-set-document.js';
import { ManualClock } from '../../support/manual-clock.js';

const key = (kid: string): PublicJwk => ({ kid, kty: 'EC', crv: 'P-256', x: 'x', y: 'y', alg: 'ES256', use: 'sig' });

/** A key source whose content and health the test controls; counts calls. */
class KeySource {
  kids = ['k1'];
  failing = false;
  calls = 0;
  pending: (() => void)[] = [];
  hold = false;
  readonly fetch = async (): Promise<KeySet> => {
    this.calls++;
    if (this.hold) await new Promise<void>((resolve) => this.pending.push(resolve));
    if (this.failing) throw new Error('connect ECONNREFUSED');
    return new Map(this.kids.map((kid) => [kid, key(kid)]));
  };
}

function code(err: unknown): string {
  assert.ok(err instanceof ProtocolError);
  return err.code;
}

describe('KeySetCache', () => {
  it('fetches once and serves known kids from memory', async () => {
    const source = new KeySource();
    const cache = new KeySetCache({ fetchKeySet: source.fetch, clock: new ManualClock().now });
    for (let i = 0; i < 5; i++) assert.equal((await cache.keyFor('k1')).kid, 'k1');
    assert.equal(source.calls, 1);
  });

  it('refetches once for a new kid, then refuses further unknown kids for 10 s without fetching', async () => {
    const source = new KeySource();
    const clock = new ManualClock();
    const cache = new KeySetCache({ fetchKeySet: source.fetch, clock: clock.now });
    await cache.keyFor('k1');
    clock.advanceMs(10_000);
    source.kids = ['k2', 'k1'];
    assert.equal((await cache.keyFor('k2')).kid, 'k2');
    assert.equal(source.calls, 2);
    await assert.rejects(cache.keyFor('k3'), (err) => code(err) === 'ERR_KEY_UNKNOWN');
    clock.advanceMs(9_999);
    await assert.rejects(cache.keyFor('k4'), (err) => code(err) === 'ERR_KEY_UNKNOWN');
    assert.equal(source.calls, 2, 'no fetch storm');
    clock.advanceMs(1);
    await assert.rejects(cache.keyFor('k4'), (err) => code(err) === 'ERR_KEY_UNKNOWN');
    assert.equal(source.calls, 3);
  });

  it('reports revoked keys only when a refetch removes or changes a trusted key, and keeps unchanged keys imported', async () => {
    const source = new KeySource();
    const clock = new ManualClock();
    let revoked = 0;
    const cache = new KeySetCache({ fetchKeySet: source.fetch, clock: clock.now, onKeysRevoked: () => revoked++ });
    const first = await cache.keyFor('k1');
    clock.advanceMs(10_000);
    source.kids = ['k1', 'k2'];
    await cache.keyFor('k2');
    assert.equal(revoked, 0, 'an added key revokes nothing');
    assert.equal(await cache.keyFor('k1'), first, 'the unchanged entry is kept, so its import is reused');
    clock.advanceMs(10_000);
    source.kids = ['k2'];
    await assert.rejects(cache.keyFor('k3'), (err) => code(err) === 'ERR_KEY_UNKNOWN');
    assert.equal(source.calls, 3);
    assert.equal(revoked, 1, 'the refetch for k3 removed k1');
    await assert.rejects(cache.keyFor('k1'), (err) => code(err) === 'ERR_KEY_UNKNOWN');
  });

  it('shares one in-flight fetch among concurrent requests', async () => {
    const source = new KeySource();
    source.hold = true;
    const cache = new KeySetCache({ fetchKeySet: source.fetch, clock: new ManualClock().now });
    const lookups = Promise.allSettled(['k1', 'k1', 'kx', 'ky'].map((kid) => cache.keyFor(kid)));
    await new Promise((resolve) => setImmediate(resolve));
    for (const release of source.pending) release();
    const results = await lookups;
    assert.equal(source.calls, 1);
    assert.deepEqual(
      results.map((result) => result.status),
      ['fulfilled', 'fulfilled', 'rejected', 'rejected'],
    );
  });

  it('fails closed with jwks_unavailable during an outage, retries at most every 10 s, and recovers', async () => {
    const source = new KeySource();
    source.failing = true;
    const clock = new ManualClock();
    const cache = new KeySetCache({ fetchKeySet: source.fetch, clock: clock.now });
    await assert.rejects(cache.keyFor('k1'), (err) => {
      assert.ok(err instanceof ProtocolError);
      assert.equal(err.code, 'ERR_JWKS_UNAVAILABLE');
      assert.equal(err.protocolCode, 'invalid_token');
      assert.match(err.auditReason(), /^jwks_unavailable: .*ECONNREFUSED/);
      return true;
    });
    clock.advanceMs(5_000);
    await assert.rejects(cache.keyFor('k1'), (err) => code(err) === 'ERR_JWKS_UNAVAILABLE');
    assert.equal(source.calls, 1);
    source.failing = false;
    clock.advanceMs(5_000);
    assert.equal((await cache.keyFor('k1')).kid, 'k1');
    assert.equal(source.calls, 2);
  });

  it('refetches a key set older than its max age and fails closed if that fetch fails', async () => {
    const source = new KeySource();
    const clock = new ManualClock();
    const cache = new KeySetCache({ fetchKeySet: source.fetch, clock: clock.now, maxAgeMs: 60_000 });
    await cache.keyFor('k1');
    clock.advanceMs(60_000);
    source.kids = ['k2'];
    await assert.rejects(cache.keyFor('k1'), (err) => code(err) === 'ERR_KEY_UNKNOWN', 'a removed key stops working');
    assert.equal(source.calls, 2);
    clock.advanceMs(60_000);
    source.failing = true;
    await assert.rejects(cache.keyFor('k2'), (err) => code(err) === 'ERR_JWKS_UNAVAILABLE');
  });

  it('trusts a fetched set for 60 s by default: a key removed upstream stops working within a minute', async () => {
    const source = new KeySource();
    const clock = new ManualClock();
    const cache = new KeySetCache({ fetchKeySet: source.fetch, clock: clock.now });
    await cache.keyFor('k1');
    source.kids = ['k2'];
    clock.advanceMs(KEY_SET_MAX_AGE_MS - 1);
    assert.ok(cache.isFresh());
    assert.equal((await cache.keyFor('k1')).kid, 'k1', 'still within the bound');
    clock.advanceMs(1);
    assert.equal(cache.isFresh(), false);
    await assert.rejects(cache.keyFor('k1'), (err) => code(err) === 'ERR_KEY_UNKNOWN');
    assert.equal(KEY_SET_MAX_AGE_MS, 60_000);
  });

  it("refetches at once on the operator's request, whatever the rate limit, and reports revoked keys", async () => {
    const source = new KeySource();
    const clock = new ManualClock();
    let revoked = 0;
    const cache = new KeySetCache({ fetchKeySet: source.fetch, clock: clock.now, onKeysRevoked: () => revoked++ });
    await cache.keyFor('k1');
    source.kids = ['k2'];
    assert.deepEqual(await cache.refetchNow(), ['k2']);
    assert.equal(source.calls, 2, 'no wait for the 10 s of the rate limit');
    assert.equal(revoked, 1);
    await assert.rejects(cache.keyFor('k1'), (err) => code(err) === 'ERR_KEY_UNKNOWN');
  });

  it('distrusts its set when the requested refetch fails: requests fail closed until a fetch succeeds', async () => {
    const source = new KeySource();
    const clock = new ManualClock();
    const cache = new KeySetCache({ fetchKeySet: source.fetch, clock: clock.now });
    await cache.keyFor('k1');
    source.failing = true;
    await assert.rejects(cache.refetchNow(), /ECONNREFUSED/);
    assert.equal(cache.isFresh(), false);
    await assert.rejects(cache.keyFor('k1'), (err) => code(err) === 'ERR_JWKS_UNAVAILABLE');
    source.failing = false;
    clock.advanceMs(10_000);
    assert.equal((await cache.keyFor('k1')).kid, 'k1');
  });

  it('does not take a fetch already under way as the answer to a refetch request', async () => {
    const source = new KeySource();
    source.hold = true;
    const cache = new KeySetCache({ fetchKeySet: source.fetch, clock: new ManualClock().now });
    const early = cache.keyFor('k1');
    await new Promise((resolve) => setImmediate(resolve));
    const requested = cache.refetchNow();
    source.pending.shift()?.();
    assert.equal((await early).kid, 'k1');
    await waitFor('the requested fetch', () => source.pending.length === 1);
    source.kids = ['k2'];
    source.pending.shift()?.();
    assert.deepEqual(await requested, ['k2']);
    assert.equal(source.calls, 2);
  });

  it('imports each key once', async () => {
    const source = new KeySource();
    const cache = new KeySetCache({ fetchKeySet: source.fetch, clock: new ManualClock().now });
    const jwk = await cache.keyFor('k1');
    assert.equal(cache.cryptoKeyFor(jwk), cache.cryptoKeyFor(jwk));
    await assert.rejects(cache.cryptoKeyFor(jwk), 'x and y are not a point');
  });
});

describe('parseKeySet', () => {
  it('keeps keys by kid, drops keys without kid and ambiguous kids, and keeps no private members', () => {
    const keys = parseKeySet({
      keys: [
        { kid: 'a', kty: 'EC', crv: 'P-256', x: '1', y: '2', d: 'secret' },
        { kty: 'EC', crv: 'P-256' },
        { kid: 'dup', kty: 'EC' },
        { kid: 'dup', kty: 'RSA' },
        'junk',
      ],
    });
    assert.deepEqual([...keys.keys()], ['a']);
    assert.equal('d' in (keys.get('a') ?? {}), false);
  });
  it('reconciles a refetched set: a changed key under a known kid is a revocation, an identical one is kept', () => {
    const previous: KeySet = new Map([['a', key('a')]]);
    const same = reconcileKeySet(previous, new Map([['a', key('a')]]));
    assert.equal(same.revoked, false);
    assert.equal(same.keys.get('a'), previous.get('a'));
    const changed = reconcileKeySet(previous, new Map([['a', { ...key('a'), x: 'other' }]]));
    assert.equal(changed.revoked, true);
    assert.equal(changed.keys.get('a')?.x, 'other');
  });
  it('refuses documents that are not a JWKS', () => {
    for (const document of [null, [], {}, { keys: {} }]) assert.throws(() => parseKeySet(document));
  });
});

describe('fetchKeySet', () => {
  it('fetches from the URL without following redirects and reports failures plainly', async (t) => {
    const server = createServer((req, res) => {
      if (req.url === '/redirect') {
        res.writeHead(302, { location: '/jwks' }).end();
        return;
      }
      if (req.url === '/jwks') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"keys":[{"kid":"a","kty":"EC"}]}');
        return;
      }
      if (req.url === '/huge') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(`{"keys":[],"pad":"${'x'.repeat(300 * 1024)}"}`);
        return;
      }
      res.writeHead(200).end('not json');
    });
    const base = await listen(server, '127.0.0.1', 0);
    t.after(() => closeServer(server));
    assert.deepEqual([...(await fetchKeySet(`${base.origin}/jwks`, fetch)).keys()], ['a']);
    await assert.rejects(fetchKeySet(`${base.origin}/redirect`, fetch), /answered 302/);
    await assert.rejects(fetchKeySet(`${base.origin}/text`, fetch), /did not answer a JWKS/);
    await assert.rejects(fetchKeySet(`${base.origin}/huge`, fetch), /answered more than 256 KiB/);
    await assert.rejects(fetchKeySet('http://127.0.0.1:1/jwks', fetch), /failed/);
  });
});
