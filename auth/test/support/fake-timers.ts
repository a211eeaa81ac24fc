import type { Timers } from '../../src/stdio-wrapper/timers.js';
import type { ManualClock } from './manual-clock.js';

interface Pending {
  readonly id: number;
  readonly dueMs: number;
  readonly callback: () => void;
}

/** Lets promise chains started by a timer callback (fetch, write, reschedule) run to their next wait. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * Timers driven by a ManualClock: `advanceMs` moves the clock to each due timer in turn and runs it,
 * so a five-minute refresh schedule runs in milliseconds.
 */
export class FakeTimers implements Timers {
  readonly #clock: ManualClock;
  #pending: Pending[] = [];
  #nextId = 0;

  constructor(clock: ManualClock) {
    this.#clock = clock;
  }

  schedule(callback: () => void, delayMs: number): () => void {
    const id = this.#nextId++;
    this.#pending.push({ id, dueMs: this.#clock.nowMs + Math.max(0, delayMs), callback });
    return () => {
      this.#pending = this.#pending.filter((timer) => timer.id !== id);
    };
  }

  /** Delays (from now) of the timers still pending, soonest first. */
  pendingDelays(): number[] {
    return this.#pending.map((timer) => timer.dueMs - this.#clock.nowMs).sort((a, b) => a - b);
  }

  /** Moves the clock forward by `ms`, running every timer that falls due on the way, in order. */
  async advanceMs(ms: number): Promise<void> {
    const targetMs = this.#clock.nowMs + ms;
    for (;;) {
      await settle();
      const next = [...this.#pending].sort((a, b) => a.dueMs - b.dueMs || a.id - b.id)[0];
      if (!next || next.dueMs > targetMs) break;
      this.#pending = this.#pending.filter((timer) => timer.id !== next.id);
      this.#clock.nowMs = Math.max(this.#clock.nowMs, next.dueMs);
      next.callback();
    }
    this.#clock.nowMs = targetMs;
    await settle();
  }
}
