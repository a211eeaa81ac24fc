import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ExpiryHeap } from '../../../src/authz/replay/expiry-heap.js';
import { REPLAY_CACHE_CAPACITY, ReplayCache } from '../../../src/authz/replay/replay-cache.js';
import { ManualClock } from '../../support/manual-clock.js';

describe('ReplayCache', () => {
  it('tells a first use from a repeated one and counts uses', () => {
    const cache = new ReplayCache({ clock: new ManualClock(0).now });
    assert.deepEqual(cache.record('a', 1_000), { kind: 'first' });
    assert.deepEqual(cache.record('a', 1_000), { kind: 'seen', uses: 2 });
    assert.deepEqual(cache.record('b', 1_000), { kind: 'first' });
  });

  it('holds at most 10,000 live entries, refuses the next one and never evicts a live entry for it', () => {
    const clock = new ManualClock(0);
    const cache = new ReplayCache({ clock: clock.now });
    assert.equal(cache.capacity, REPLAY_CACHE_CAPACITY);
    assert.equal(REPLAY_CACHE_CAPACITY, 10_000);
    for (let i = 0; i < 10_000; i++) assert.equal(cache.record(`live-${i}`, 60_000 + i).kind, 'first');
    assert.deepEqual(cache.record('new', 60_000), { kind: 'full' });
    assert.equal(cache.size, 10_000);
    // Every live entry is still there: each one is recognised as seen.
    for (let i = 0; i < 10_000; i++) assert.equal(cache.record(`live-${i}`, 60_000 + i).kind, 'seen');
    assert.deepEqual(cache.record('new', 60_000), { kind: 'full' });
  });

  it('evicts an entry when its time is reached, on the next insert', () => {
    const clock = new ManualClock(0);
    const cache = new ReplayCache({ clock: clock.now });
    cache.record('early', 1_000);
    cache.record('late', 5_000);
    clock.nowMs = 999;
    cache.record('probe-1', 10_000);
    assert.equal(cache.size, 3);
    clock.nowMs = 1_000;
    cache.record('probe-2', 10_000);
    assert.equal(cache.size, 3, 'early is gone, probe-2 came in');
    assert.equal(cache.record('early', 10_000).kind, 'first');
    clock.nowMs = 5_000;
    assert.equal(cache.record('late', 10_000).kind, 'first');
  });

  it('makes room again once entries expire, when full', () => {
    const clock = new ManualClock(0);
    const cache = new ReplayCache({ clock: clock.now, capacity: 3 });
    for (const key of ['a', 'b', 'c']) cache.record(key, 100 * key.charCodeAt(0));
    assert.equal(cache.record('d', 50_000).kind, 'full');
    clock.nowMs = 100 * 'a'.charCodeAt(0);
    assert.equal(cache.record('d', 50_000).kind, 'first');
    assert.equal(cache.record('e', 50_000).kind, 'full');
  });

  it('keeps a re-presented key until the later of its deadlines', () => {
    const clock = new ManualClock(0);
    const cache = new ReplayCache({ clock: clock.now });
    cache.record('k', 1_000);
    cache.record('k', 3_000);
    clock.nowMs = 2_000;
    cache.evictExpired();
    assert.equal(cache.record('k', 3_000).kind, 'seen');
    clock.nowMs = 3_000;
    cache.evictExpired();
    assert.equal(cache.size, 0);
  });

  it('evicts a large expired backlog in one insert', () => {
    const clock = new ManualClock(0);
    const cache = new ReplayCache({ clock: clock.now });
    for (let i = 0; i < 10_000; i++) cache.record(`old-${i}`, 1_000 + (i % 97));
    clock.nowMs = 2_000;
    cache.record('fresh', 9_000);
    assert.equal(cache.size, 1);
  });
});

describe('ExpiryHeap', () => {
  it('pops deadlines in ascending order whatever the insertion order', () => {
    const heap = new ExpiryHeap();
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed;
    };
    const deadlines = Array.from({ length: 500 }, () => random() % 1_000);
    for (const [index, atMs] of deadlines.entries()) heap.push({ atMs, key: `k${index}` });
    const popped: number[] = [];
    for (let item = heap.pop(); item !== undefined; item = heap.pop()) popped.push(item.atMs);
    assert.deepEqual(
      popped,
      [...deadlines].sort((a, b) => a - b),
    );
    assert.equal(heap.size, 0);
    assert.equal(heap.peek(), undefined);
  });
});
