/** Timers as a seam: the wrapper's schedule is tested with a manual clock instead of real waits. */
export interface Timers {
  /** Runs `callback` after `delayMs`; the returned function cancels it. */
  schedule(callback: () => void, delayMs: number): () => void;
}

/** setTimeout's largest delay (2^31 - 1 ms, about 24.8 days); longer ones would fire at once. */
const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

export const systemTimers: Timers = {
  schedule(callback, delayMs) {
    const timer = setTimeout(callback, Math.min(Math.max(0, delayMs), MAX_TIMER_DELAY_MS));
    return () => clearTimeout(timer);
  },
};
