import type { IndexProgress } from '../indexer/types.js';

export interface ProgressStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

export interface ProgressReporterOptions {
  readonly enabled: boolean;
  readonly clock?: () => number;
  /** How often a plain (non-terminal) progress line is written. */
  readonly lineIntervalMs?: number;
}

const BAR_REFRESH_MS = 100;
const LINE_INTERVAL_MS = 10_000;
const BAR_WIDTH = 24;

/**
 * Progress on stderr: a redrawn bar on a terminal (files, chunks, rate, ETA),
 * plain lines every few seconds otherwise, so logs stay readable.
 */
export function createProgressReporter(stream: ProgressStream, options: ProgressReporterOptions) {
  const clock = options.clock ?? Date.now;
  const tty = stream.isTTY === true;
  let startedAtMs: number | undefined;
  let lastDrawMs = Number.NEGATIVE_INFINITY;
  let barShown = false;

  const line = (text: string) => {
    if (barShown) stream.write('\r\x1b[K');
    barShown = false;
    stream.write(`${text}\n`);
  };

  const onProgress = (event: IndexProgress): void => {
    if (!options.enabled) return;
    const now = clock();
    if (event.kind !== 'file-done') {
      if (event.kind === 'planned') {
        startedAtMs = now;
        lastDrawMs = now;
      }
      line(announce(event));
      return;
    }
    const interval = tty ? BAR_REFRESH_MS : (options.lineIntervalMs ?? LINE_INTERVAL_MS);
    if (now - lastDrawMs < interval && event.filesDone !== event.filesTotal) return;
    lastDrawMs = now;
    const status = describe(event, now - (startedAtMs ?? now));
    if (!tty) {
      line(status);
      return;
    }
    stream.write(`\r\x1b[K${bar(event.bytesDone, event.bytesTotal)} ${status}`.slice(0, (stream.columns ?? 120) + 4));
    barShown = true;
  };

  return {
    onProgress,
    finish: () => {
      if (barShown) stream.write('\r\x1b[K');
      barShown = false;
    },
  };
}

function announce(event: Exclude<IndexProgress, { kind: 'file-done' }>): string {
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

function describe(event: Extract<IndexProgress, { kind: 'file-done' }>, elapsedMs: number): string {
  const seconds = elapsedMs / 1000;
  const rate = seconds > 0 ? event.chunksEmbedded / seconds : 0;
  const remaining =
    event.bytesDone > 0 ? (elapsedMs * (event.bytesTotal - event.bytesDone)) / event.bytesDone : undefined;
  const eta = remaining === undefined ? '?' : formatDuration(remaining);
  return `${event.filesDone}/${event.filesTotal} files, ${event.chunksEmbedded} chunks, ${rate.toFixed(1)} chunks/s, ETA ${eta}`;
}

export function bar(done: number, total: number): string {
  const filled = total > 0 ? Math.round((done / total) * BAR_WIDTH) : BAR_WIDTH;
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
