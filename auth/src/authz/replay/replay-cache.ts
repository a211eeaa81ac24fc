import type { Clock } from '../../shared/clock.js';
import { systemClock } from '../../shared/clock.js';
import { ExpiryHeap } from './expiry-heap.js';
import type { RecordResult, ReplayStore } from './replay-store.js';
import { FIRST_USE, STORE_FULL } from './replay-store.js';

/** docs/protocol.md#limits: the in-memory store holds 10,000 live entries by default; then 503. */
export const REPLAY_CACHE_CAPACITY = 10_000;

interface Entry {
  untilMs: number;
  uses: number;
}

/**
 * The in-memory replay store (docs/protocol.md#replay-store), per process: a restart or another
 * replica starts empty. Every
 * record first evicts the entries whose time has come, cheapest first from a min-heap, so the cost
 * is proportional to what expired, not to the cache size.
 */
export class ReplayCache implements ReplayStore {
  readonly kind = 'memory';
  readonly capacity: number;
  readonly #entries = new Map<string, Entry>();
  readonly #expiries = new ExpiryHeap();
  readonly #clock: Clock;

  constructor(options: { clock?: Clock; capacity?: number } = {}) {
    this.#clock = options.clock ?? systemClock;
    this.capacity = options.capacity ?? REPLAY_CACHE_CAPACITY;
  }

  /** Entries held, expired ones not yet evicted included. */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * Records one use of `key`, kept until `untilMs`. A key seen before stays until the later of its
   * deadlines; a new key when the cache is full is not recorded.
   */
  record(key: string, untilMs: number): RecordResult {
    this.evictExpired();
    const entry = this.#entries.get(key);
    if (entry !== undefined) {
      entry.uses += 1;
      if (untilMs > entry.untilMs) {
        entry.untilMs = untilMs;
        this.#expiries.push({ atMs: untilMs, key });
      }
      return { kind: 'seen', uses: entry.uses };
    }
    if (this.#entries.size >= this.capacity) return STORE_FULL;
    this.#entries.set(key, { untilMs, uses: 1 });
    this.#expiries.push({ atMs: untilMs, key });
    return FIRST_USE;
  }

  async liveEntries(): Promise<number> {
    this.evictExpired();
    return this.#entries.size;
  }

  async close(): Promise<void> {}

  /** Drops every entry whose deadline has been reached. */
  evictExpired(): void {
    const nowMs = this.#clock();
    for (let next = this.#expiries.peek(); next !== undefined && next.atMs <= nowMs; next = this.#expiries.peek()) {
      this.#expiries.pop();
      // A heap node left behind by an extended deadline no longer owns its entry.
      if (this.#entries.get(next.key)?.untilMs === next.atMs) this.#entries.delete(next.key);
    }
  }
}
