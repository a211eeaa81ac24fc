import type { Clock } from '../../shared/clock.js';
import { systemClock } from '../../shared/clock.js';
import { ExpiryHeap } from './expiry-heap.js';
import type { RecordResult, ReplayEntry, ReplayStore } from './replay-store.js';
import { FIRST_USE, replayKey, SHARE_FULL, STORE_FULL } from './replay-store.js';

/** docs/protocol.md#limits: the in-memory store holds 10,000 live entries by default; then 503. */
export const REPLAY_CACHE_CAPACITY = 10_000;

interface Entry {
  readonly owner: string;
  untilMs: number;
  uses: number;
}

/**
 * The in-memory replay store (docs/protocol.md#replay-store), per process: a restart or another
 * replica starts empty. Every record first evicts the entries whose time has come, cheapest first
 * from a min-heap, so the cost is proportional to what expired, not to the cache size. Live entries
 * are counted per owner as well, for the share bound.
 */
export class ReplayCache implements ReplayStore {
  readonly kind = 'memory';
  readonly capacity: number;
  readonly #entries = new Map<string, Entry>();
  readonly #perOwner = new Map<string, number>();
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
   * Records one use of `entry`. A key seen before stays until the later of its deadlines; a new key
   * is not recorded when its owner holds `shareLimit` entries or the cache is full.
   */
  record(entry: ReplayEntry, shareLimit: number): RecordResult {
    this.evictExpired();
    const key = replayKey(entry);
    const known = this.#entries.get(key);
    if (known !== undefined) {
      known.uses += 1;
      if (entry.untilMs > known.untilMs) {
        known.untilMs = entry.untilMs;
        this.#expiries.push({ atMs: entry.untilMs, key });
      }
      return { kind: 'seen', uses: known.uses };
    }
    const held = this.#perOwner.get(entry.owner) ?? 0;
    if (held >= shareLimit) return SHARE_FULL;
    if (this.#entries.size >= this.capacity) return STORE_FULL;
    this.#entries.set(key, { owner: entry.owner, untilMs: entry.untilMs, uses: 1 });
    this.#perOwner.set(entry.owner, held + 1);
    this.#expiries.push({ atMs: entry.untilMs, key });
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
      const entry = this.#entries.get(next.key);
      // A heap node left behind by an extended deadline no longer owns its entry.
      if (entry?.untilMs !== next.atMs) continue;
      this.#entries.delete(next.key);
      const held = (this.#perOwner.get(entry.owner) ?? 1) - 1;
      if (held === 0) this.#perOwner.delete(entry.owner);
      else this.#perOwner.set(entry.owner, held);
    }
  }
}
