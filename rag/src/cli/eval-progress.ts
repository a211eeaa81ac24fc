import type { EvalProgress } from '../eval/run-eval.js';
import { bar, createProgressReporter, type ProgressStream } from './progress-reporter.js';

/** Redraws of the query bar are at least this far apart. */
const BAR_REFRESH_MS = 100;

/**
 * `eval`'s progress on stderr: the index run's progress as `index` shows it,
 * then a bar per mode on a terminal (a line per finished mode otherwise).
 */
export function createEvalProgress(stream: ProgressStream, options: { enabled: boolean; clock?: () => number }) {
  const clock = options.clock ?? Date.now;
  const indexing = createProgressReporter(stream, options);
  const tty = stream.isTTY === true;
  let lastDrawMs = Number.NEGATIVE_INFINITY;
  let modeStartedAtMs = 0;
  let barShown = false;

  const onProgress = (event: EvalProgress): void => {
    if (!options.enabled) return;
    if (event.kind === 'loaded') {
      stream.write(`${event.documents} documents, ${event.queries} judged queries\n`);
      return;
    }
    if (event.kind === 'index') {
      indexing.onProgress(event.event);
      return;
    }
    indexing.finish();
    const now = clock();
    if (event.done === 1) modeStartedAtMs = now;
    const finished = event.done === event.total;
    if (tty && (finished || now - lastDrawMs >= BAR_REFRESH_MS)) {
      lastDrawMs = now;
      stream.write(`\r\x1b[K${bar(event.done, event.total)} ${event.mode}: ${event.done}/${event.total} queries`);
      barShown = true;
    }
    if (finished) {
      if (barShown) stream.write('\r\x1b[K');
      barShown = false;
      stream.write(`${event.mode}: ${event.total} queries in ${((now - modeStartedAtMs) / 1000).toFixed(1)} s\n`);
    }
  };

  return {
    onProgress,
    finish: () => {
      indexing.finish();
      if (barShown) stream.write('\r\x1b[K');
      barShown = false;
    },
  };
}
