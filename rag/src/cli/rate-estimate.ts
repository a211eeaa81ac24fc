/**
 * Ours: no rate (and so no ETA) until progress has been measured for this long. The first finished file
 * carries the model's load and the first batch's set-up; a rate over it alone promised "43 minutes" for a
 * run that took 23 seconds.
 */
export const WARM_UP_MS = 3_000;
/** Ours: the rate is measured over this last stretch, so that it follows a run whose pace changes. */
export const RATE_WINDOW_MS = 20_000;

interface Sample {
  readonly atMs: number;
  readonly done: number;
}

/**
 * A rate of progress measured from the first sample on (docs/retrieval.md#index-runs: progress): nothing
 * during the warm-up, then the units done per millisecond over the last window. Pure: the caller gives
 * the times.
 */
export class RateEstimate {
  readonly #warmUpMs: number;
  readonly #windowMs: number;
  #first: Sample | undefined;
  #samples: Sample[] = [];

  /** The defaults are the progress bar's; the ETA benchmark compares others. */
  constructor(options: { readonly warmUpMs?: number; readonly windowMs?: number } = {}) {
    this.#warmUpMs = options.warmUpMs ?? WARM_UP_MS;
    this.#windowMs = options.windowMs ?? RATE_WINDOW_MS;
  }

  add(atMs: number, done: number): void {
    const sample = { atMs, done };
    this.#first ??= sample;
    this.#samples.push(sample);
    // Keep one sample at or before the window's start, so that the window is always measured whole.
    while (this.#samples.length > 2 && (this.#samples[1]?.atMs ?? atMs) <= atMs - this.#windowMs) {
      this.#samples.shift();
    }
  }

  /** Units per millisecond at `atMs`, or undefined during the warm-up. 0 when nothing moved in the window. */
  rate(atMs: number): number | undefined {
    const first = this.#first;
    const last = this.#samples.at(-1);
    if (!first || !last || atMs - first.atMs < this.#warmUpMs) return undefined;
    const start = Math.max(first.atMs, atMs - this.#windowMs);
    const base = [...this.#samples].reverse().find((sample) => sample.atMs <= start) ?? first;
    const elapsedMs = atMs - base.atMs;
    return elapsedMs > 0 ? Math.max(0, last.done - base.done) / elapsedMs : undefined;
  }

  /** Milliseconds left to reach `total` at the current rate; undefined during the warm-up or while stalled. */
  remainingMs(atMs: number, total: number): number | undefined {
    const rate = this.rate(atMs);
    const done = this.#samples.at(-1)?.done ?? 0;
    if (rate === undefined) return undefined;
    if (done >= total) return 0;
    return rate > 0 ? (total - done) / rate : undefined;
  }
}
