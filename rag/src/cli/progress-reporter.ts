import type { IndexProgress } from '../indexer/types.js';
import { RateEstimate, RemainingTime } from './rate-estimate.js';

export interface ProgressStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

/** Calls `tick` every `everyMs` until the returned function is called. */
export type Ticker = (tick: () => void, everyMs: number) => () => void;

export interface ProgressReporterOptions {
  readonly enabled: boolean;
  readonly clock?: () => number;
  /** How often a plain (non-terminal) progress line is written. */
  readonly lineIntervalMs?: number;
  /** Redraws between events (default a timer that does not keep the process alive). */
  readonly ticker?: Ticker;
}

const BAR_REFRESH_MS = 100;
/** Ours: a terminal's line is redrawn this often while nothing finishes, so that it never looks frozen. */
const TICK_MS = 1_000;
const LINE_INTERVAL_MS = 10_000;
const BAR_WIDTH = 24;
/** A terminal that reports no width (0 or none) gets lines this wide. */
const FALLBACK_COLUMNS = 80;

const timerTicker: Ticker = (tick, everyMs) => {
  const timer = setInterval(tick, everyMs);
  timer.unref();
  return () => clearInterval(timer);
};

type FileDone = Extract<IndexProgress, { kind: 'file-done' }>;
type DownloadProgress = Extract<IndexProgress, { kind: 'model-download-progress' }>;

/**
 * Progress on stderr (docs/retrieval.md#index-runs): a redrawn bar on a terminal (files, chunks, rate, ETA),
 * redrawn every second even while one long file embeds; plain lines every ten seconds otherwise, so that
 * logs stay readable. The ETA comes from the rate measured after a warm-up, never from the run's first
 * seconds. Model downloads show their bytes the same way.
 */
export function createProgressReporter(stream: ProgressStream, options: ProgressReporterOptions) {
  const clock = options.clock ?? Date.now;
  const tty = stream.isTTY === true;
  const lineIntervalMs = options.lineIntervalMs ?? LINE_INTERVAL_MS;
  let lastDrawMs = Number.NEGATIVE_INFINITY;
  let barShown = false;
  let remaining = new RemainingTime();
  let bytes = new RateEstimate();
  let chunks = new RateEstimate();
  let last: FileDone | DownloadProgress | undefined;
  let stopTicker: (() => void) | undefined;

  const line = (text: string) => {
    if (barShown) stream.write('\r\x1b[K');
    barShown = false;
    stream.write(`${text}\n`);
  };

  const draw = (now: number, force: boolean): void => {
    if (!last) return;
    const interval = tty ? BAR_REFRESH_MS : lineIntervalMs;
    if (!force && now - lastDrawMs < interval) return;
    lastDrawMs = now;
    const [done, total, status] =
      last.kind === 'file-done'
        ? [last.bytesDone, last.bytesTotal, describeFiles(last, now, remaining, chunks)]
        : [last.bytesDone, last.bytesTotal ?? 0, describeDownload(last, now, bytes)];
    if (!tty) {
      line(status);
      return;
    }
    const width = (stream.columns ?? 0) > 0 ? (stream.columns ?? FALLBACK_COLUMNS) : FALLBACK_COLUMNS;
    // One column short of the width: a line that fills it wraps on some terminals, and \r no longer redraws it.
    stream.write(`\r\x1b[K${`${bar(done, total)} ${status}`.slice(0, width - 1)}`);
    barShown = true;
  };

  const startTicking = () => {
    stopTicker ??= (options.ticker ?? timerTicker)(() => draw(clock(), false), tty ? TICK_MS : lineIntervalMs);
  };

  const onProgress = (event: IndexProgress): void => {
    if (!options.enabled) return;
    const now = clock();
    if (event.kind === 'file-done') {
      remaining.add(now, event);
      chunks.add(now, event.chunksEmbedded);
      last = event;
      // The last file always shows, whatever the spacing.
      draw(now, event.filesDone === event.filesTotal);
    } else if (event.kind === 'model-download-progress') {
      bytes.add(now, event.bytesDone);
      last = event;
      if (event.bytesTotal !== undefined && event.bytesDone >= event.bytesTotal) {
        last = undefined;
        line(`downloaded ${event.file}: ${formatBytes(event.bytesDone)}`);
      } else {
        draw(now, false);
      }
    } else {
      if (event.kind === 'planned' || event.kind === 'model-download') {
        // A new stretch of work: its rate is measured afresh.
        remaining = new RemainingTime();
        bytes = new RateEstimate();
        chunks = new RateEstimate();
        last = undefined;
        lastDrawMs = now;
        startTicking();
      }
      line(announce(event));
    }
  };

  return {
    onProgress,
    finish: () => {
      stopTicker?.();
      stopTicker = undefined;
      if (barShown) stream.write('\r\x1b[K');
      barShown = false;
    },
  };
}

function announce(event: Exclude<IndexProgress, { kind: 'file-done' | 'model-download-progress' }>): string {
  switch (event.kind) {
    case 'model-download':
      return `downloading ${event.url}`;
    case 'model-loading':
      return `loading model ${event.modelId}`;
    case 'scanned':
      return `${event.vault}: ${event.files} markdown files`;
    case 'planned':
      return `${event.unchanged} unchanged, ${event.removed} removed, ${event.filesToCheck} to check`;
  }
}

function describeFiles(event: FileDone, now: number, time: RemainingTime, chunks: RateEstimate): string {
  const chunkRate = chunks.rate(now);
  const left = time.remainingMs(now, event);
  const rate = chunkRate === undefined ? '' : `, ${(chunkRate * 1000).toFixed(1)} chunks/s`;
  const eta =
    event.filesDone === event.filesTotal
      ? ''
      : left === undefined
        ? time.warmedUp(now)
          ? ', ETA unknown (no progress lately)'
          : ', ETA estimating'
        : `, ETA ${formatDuration(left)}`;
  return `${event.filesDone}/${event.filesTotal} files, ${event.chunksEmbedded} chunks${rate}${eta}`;
}

function describeDownload(event: DownloadProgress, now: number, bytes: RateEstimate): string {
  const rate = bytes.rate(now);
  const total = event.bytesTotal === undefined ? '' : ` of ${formatBytes(event.bytesTotal)}`;
  const speed = rate === undefined ? '' : `, ${formatBytes(rate * 1000)}/s`;
  const remaining = event.bytesTotal === undefined ? undefined : bytes.remainingMs(now, event.bytesTotal);
  const eta = remaining === undefined ? '' : `, ETA ${formatDuration(remaining)}`;
  return `downloading ${event.file}: ${formatBytes(event.bytesDone)}${total}${speed}${eta}`;
}

export function bar(done: number, total: number): string {
  const filled = total > 0 ? Math.min(BAR_WIDTH, Math.round((done / total) * BAR_WIDTH)) : BAR_WIDTH;
  return `[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}]`;
}

export function formatDuration(ms: number): string {
  const totalSeconds = Math.max(0, Math.round(ms / 1000));
  const minutes = Math.floor(totalSeconds / 60);
  const seconds = totalSeconds % 60;
  if (minutes === 0) return `${seconds}s`;
  const hours = Math.floor(minutes / 60);
  return hours === 0
    ? `${minutes}m${String(seconds).padStart(2, '0')}s`
    : `${hours}h${String(minutes % 60).padStart(2, '0')}m`;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${Math.round(bytes)} B`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
}
