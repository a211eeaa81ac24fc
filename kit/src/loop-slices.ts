import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Ours: the longest a piece of long work holds the event loop before it gives the loop a turn
 * (docs/retrieval.md#index-runs): a request that arrives meanwhile waits about this long.
 */
export const SLICE_MS = 10;

/** Work written as steps: a generator that yields between steps and returns its result. */
export type Steps<T> = Generator<void, T, undefined>;

/** Runs `steps` to the end at once, never giving the event loop a turn (pure callers, tests). */
export function runSteps<T>(steps: Steps<T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * Long work on the event loop's thread, cut in slices of about SLICE_MS: between two steps the work
 * gives the loop a turn (setImmediate, so pending I/O and timers run first) once its slice is used
 * up. One per piece of work; a step must itself be short.
 */
export class LoopSlices {
  readonly #sliceMs: number;
  readonly #now: () => number;
  #startedMs: number;

  constructor(sliceMs = SLICE_MS, now: () => number = () => performance.now()) {
    this.#sliceMs = sliceMs;
    this.#now = now;
    this.#startedMs = now();
  }

  /** Whether this slice is used up: then `await pause()` before the next step. */
  get due(): boolean {
    return this.#now() - this.#startedMs >= this.#sliceMs;
  }

  /** Gives the event loop a turn, then starts a new slice. */
  async pause(): Promise<void> {
    await nextTurn();
    this.#startedMs = this.#now();
  }

  /** Runs `steps` to the end, giving the loop a turn between steps whenever a slice is used up. */
  async run<T>(steps: Steps<T>): Promise<T> {
    for (;;) {
      const step = steps.next();
      if (step.done) return step.value;
      if (this.due) await this.pause();
    }
  }
}
