import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ExpiryHeap } from '../../../src/authz/replay/expiry-heap.js';
import { REPLAY_CACHE_CAPACITY, ReplayCache } from '../../../src/authz/replay/replay-cache.js';
import type { ReplayEntry } from '../../../src/authz/replay/replay-store.js';
import { ManualClock } from '../../support/manual-clock.js';

const AGENT = 'spiffe://example.org/agent';
const READER = 'spiffe://example.org/reader';
/** An entry of `owner` (the agent by default), kept until `untilMs`. */
const entry = (id: string, untilMs: number, owner = AGENT): ReplayEntry => ({ owner, id, untilMs });
/** For the cases about the whole capacity: a share that never binds. */
const NO_SHARE_BOUND = Number.MAX_SAFE_INTEGER;

describe('ReplayCache', () => {
  it('tells a first use from a repeated one and counts uses', () => {
    const cache = new ReplayCache({ clock: new ManualClock(0).now });
    assert.deepEqual(cache.record(entry('a', 1_000), NO_SHARE_BOUND), { kind: 'first' });
    assert.deepEqual(cache.record(entry('a', 1_000), NO_SHARE_BOUND), { kind: 'seen', uses: 2 });
    assert.deepEqual(cache.record(entry('b', 1_000), NO_SHARE_BOUND), { kind: 'first' });
  });

  it('holds at most 10,000 live entries, refuses the next one and never evicts a live entry for it', () => {
    const clock = new ManualClock(0);
    const cache = new ReplayCache({ clock: clock.now });
    assert.equal(cache.capacity, REPLAY_CACHE_CAPACITY);
    assert.equal(REPLAY_CACHE_CAPACITY, 10_000);
    for (let i = 0; i < 10_000; i++)
      assert.equal(cache.record(entry(`live-${i}`, 60_000 + i), NO_SHARE_BOUND).kind, 'first');
    assert.deepEqual(cache.record(entry('new', 60_000), NO_SHARE_BOUND), { kind: 'full' });
    assert.equal(cache.size, 10_000);
    // Every live entry is still there: each one is recognised as seen.
    for (let i = 0; i < 10_000; i++)
      assert.equal(cache.record(entry(`live-${i}`, 60_000 + i), NO_SHARE_BOUND).kind, 'seen');
    assert.deepEqual(cache.record(entry('new', 60_000), NO_SHARE_BOUND), { kind: 'full' });
  });

  it('evicts an entry when its time is reached, on the next insert', () => {
    const clock = new ManualClock(0);
    const cache = new ReplayCache({ clock: clock.now });
    cache.record(entry('early', 1_000), NO_SHARE_BOUND);
    cache.record(entry('late', 5_000), NO_SHARE_BOUND);
    clock.nowMs = 999;
    cache.record(entry('probe-1', 10_000), NO_SHARE_BOUND);
    assert.equal(cache.size, 3);
    clock.nowMs = 1_000;
    cache.record(entry('probe-2', 10_000), NO_SHARE_BOUND);
    assert.equal(cache.size, 3, 'early is gone, probe-2 came in');
    assert.equal(cache.record(entry('early', 10_000), NO_SHARE_BOUND).kind, 'first');
    clock.nowMs = 5_000;
    assert.equal(cache.record(entry('late', 10_000), NO_SHARE_BOUND).kind, 'first');
  });

  it('makes room again once entries expire, when full', () => {
    const clock = new ManualClock(0);
    const cache = new ReplayCache({ clock: clock.now, capacity: 3 });
    for (const key of ['a', 'b', 'c']) cache.record(entry(key, 100 * key.charCodeAt(0)), NO_SHARE_BOUND);
    assert.equal(cache.record(entry('d', 50_000), NO_SHARE_BOUND).kind, 'full');
    clock.nowMs = 100 * 'a'.charCodeAt(0);
    assert.equal(cache.record(entry('d', 50_000), NO_SHARE_BOUND).kind, 'first');
    assert.equal(cache.record(entry('e', 50_000), NO_SHARE_BOUND).kind, 'full');
  });

  it('keeps a re-presented key until the later of its deadlines', () => {
    const clock = new ManualClock(0);
    const cache = new ReplayCache({ clock: clock.now });
    cache.record(entry('k', 1_000), NO_SHARE_BOUND);
    cache.record(entry('k', 3_000), NO_SHARE_BOUND);
    clock.nowMs = 2_000;
    cache.evictExpired();
    assert.equal(cache.record(entry('k', 3_000), NO_SHARE_BOUND).kind, 'seen');
    clock.nowMs = 3_000;
    cache.evictExpired();
    assert.equal(cache.size, 0);
  });

  it("refuses an owner's new entry once it holds its share, while other owners still get room", () => {
    const clock = new ManualClock(0);
    const cache = new ReplayCache({ clock: clock.now, capacity: 10 });
    for (let i = 0; i < 4; i++) assert.equal(cache.record(entry(`r${i}`, 5_000, READER), 4).kind, 'first');
    assert.deepEqual(cache.record(entry('r4', 5_000, READER), 4), { kind: 'share_full' });
    // Uses of what it already holds are still counted: the share bounds room, not replay detection.
    assert.deepEqual(cache.record(entry('r0', 5_000, READER), 4), { kind: 'seen', uses: 2 });
    for (let i = 0; i < 4; i++) assert.equal(cache.record(entry(`a${i}`, 5_000), 4).kind, 'first');
    assert.equal(cache.size, 8);
  });

  it('gives an owner its share back as its entries expire, the extended ones last', () => {
    const clock = new ManualClock(0);
    const cache = new ReplayCache({ clock: clock.now });
    cache.record(entry('early', 1_000, READER), 2);
    cache.record(entry('late', 1_000, READER), 2);
    cache.record(entry('late', 3_000, READER), 2);
    assert.equal(cache.record(entry('third', 9_000, READER), 2).kind, 'share_full');
    clock.nowMs = 1_000;
    assert.equal(cache.record(entry('third', 9_000, READER), 2).kind, 'first');
    assert.equal(cache.record(entry('fourth', 9_000, READER), 2).kind, 'share_full');
    clock.nowMs = 3_000;
    assert.equal(cache.record(entry('fourth', 9_000, READER), 2).kind, 'first');
    assert.equal(cache.size, 2);
  });

  it('tells a full store from a full share: the share is checked first', () => {
    const cache = new ReplayCache({ clock: new ManualClock(0).now, capacity: 2 });
    cache.record(entry('a0', 5_000), 2);
    cache.record(entry('r0', 5_000, READER), 2);
    assert.equal(cache.record(entry('a1', 5_000), 2).kind, 'full');
    assert.equal(cache.record(entry('r1', 5_000, READER), 1).kind, 'share_full');
  });

  it('evicts a large expired backlog in one insert', () => {
    const clock = new ManualClock(0);
    const cache = new ReplayCache({ clock: clock.now });
    for (let i = 0; i < 10_000; i++) cache.record(entry(`old-${i}`, 1_000 + (i % 97)), NO_SHARE_BOUND);
    clock.nowMs = 2_000;
    cache.record(entry('fresh', 9_000), NO_SHARE_BOUND);
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
