import type { Clock } from '../../src/shared/clock.js';

/** 2026-11-22T08:30:00Z: a ManualClock starts at this instant unless told otherwise. */
export const START_MS = Date.UTC(2026, 10, 22, 8, 30, 0);

/**
 * A clock tests move by hand. Every reading and every move names its unit: `now` is the production
 * {@link Clock} (milliseconds since the epoch), `nowMs`/`nowS` read it, `advanceMs`/`advanceS` move it.
 */
export class ManualClock {
  /** Milliseconds since the epoch; tests and fake timers may also set it outright. */
  nowMs: number;

  constructor(startMs: number = START_MS) {
    this.nowMs = startMs;
  }

  readonly now: Clock = () => this.nowMs;

  /** Whole seconds since the epoch, as JWT claims count them. */
  get nowS(): number {
    return Math.floor(this.nowMs / 1000);
  }

  advanceMs(ms: number): void {
    this.nowMs += ms;
  }

  advanceS(seconds: number): void {
    this.nowMs += seconds * 1000;
  }
}
