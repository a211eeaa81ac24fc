/**
 * Ours: no rate (and so no ETA) until progress has been measured for this long. The first finished file
 * carries the model's load and the first batch's set-up; a rate over it alone promised "43 minutes" for a
 * run that took 23 seconds. Files are committed in bursts (a window of chunks is embedded, then its files
 * are written), so the first seconds hold one or two bursts: 10 s, chosen with bench/rag/index-eta
 * (docs/retrieval.md#index-runs).
 */
export const WARM_UP_MS = 10_000;
/** Ours: the rate is measured over this last stretch, so that it follows a run whose pace changes. */
export const RATE_WINDOW_MS = 60_000;

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

/**
 * The time left of an index run (docs/retrieval.md#index-runs): the mean of what the rate of files and the
 * rate of bytes each say. Neither alone is the work: a file costs its reading, hashing and writing
 * whatever its size, and a byte of a long note costs its share of embedding. On the eval vault the mean
 * stayed within about 2x through most of a run, where bytes alone under-estimated by up to 3.5x and
 * files alone over-estimated by up to 4.6x (bench/rag/index-eta, docs/retrieval.md#index-runs).
 */
export class RemainingTime {
  readonly #files: RateEstimate;
  readonly #bytes: RateEstimate;

  constructor(options: { readonly warmUpMs?: number; readonly windowMs?: number } = {}) {
    this.#files = new RateEstimate(options);
    this.#bytes = new RateEstimate(options);
  }

  add(atMs: number, progress: { readonly filesDone: number; readonly bytesDone: number }): void {
    this.#files.add(atMs, progress.filesDone);
    this.#bytes.add(atMs, progress.bytesDone);
  }

  /** Undefined during the warm-up, or while nothing moves. */
  remainingMs(atMs: number, totals: { readonly filesTotal: number; readonly bytesTotal: number }): number | undefined {
    const byFiles = this.#files.remainingMs(atMs, totals.filesTotal);
    const byBytes = this.#bytes.remainingMs(atMs, totals.bytesTotal);
    return byFiles === undefined || byBytes === undefined ? undefined : (byFiles + byBytes) / 2;
  }

  /** Whether the warm-up is over. */
  warmedUp(atMs: number): boolean {
    return this.#files.rate(atMs) !== undefined;
  }
}
