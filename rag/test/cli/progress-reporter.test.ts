import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createProgressReporter, formatDuration } from '../../src/cli/progress-reporter.js';
import type { IndexProgress } from '../../src/indexer/types.js';

function stream(isTTY: boolean) {
  const writes: string[] = [];
  return { writes, isTTY, columns: 200, write: (text: string) => writes.push(text) };
}

const fileDone = (filesDone: number, bytesDone: number, chunksEmbedded: number): IndexProgress => ({
  kind: 'file-done',
  vault: 'v',
  path: `f${filesDone}.md`,
  outcome: 'new',
  filesDone,
  filesTotal: 4,
  bytesDone,
  bytesTotal: 400,
  chunksEmbedded,
});

describe('createProgressReporter', () => {
  it('redraws one bar line on a terminal with files, chunks, rate and ETA, and clears it at the end', () => {
    const out = stream(true);
    let now = 0;
    const reporter = createProgressReporter(out, { enabled: true, clock: () => now });
    reporter.onProgress({ kind: 'planned', filesToCheck: 4, bytesToCheck: 400, unchanged: 1, removed: 0 });
    now = 10_000;
    reporter.onProgress(fileDone(1, 100, 20));
    assert.equal(out.writes.at(-1), '\r\x1b[K[######..................] 1/4 files, 20 chunks, 2.0 chunks/s, ETA 30s');
    now = 10_050;
    reporter.onProgress(fileDone(2, 200, 40));
    assert.equal(out.writes.length, 2, 'redraws at most every 100 ms');
    reporter.finish();
    assert.equal(out.writes.at(-1), '\r\x1b[K');
  });

  it('writes plain lines every interval when stderr is not a terminal, and always the last one', () => {
    const out = stream(false);
    let now = 0;
    const reporter = createProgressReporter(out, { enabled: true, clock: () => now, lineIntervalMs: 5000 });
    reporter.onProgress({ kind: 'scanned', vault: 'v', files: 4 });
    reporter.onProgress({ kind: 'planned', filesToCheck: 4, bytesToCheck: 400, unchanged: 0, removed: 0 });
    now = 1000;
    reporter.onProgress(fileDone(1, 100, 5));
    now = 6000;
    reporter.onProgress(fileDone(2, 200, 10));
    now = 6500;
    reporter.onProgress(fileDone(4, 400, 20));
    assert.deepEqual(out.writes, [
      'v: 4 markdown files\n',
      '0 unchanged, 0 removed, 4 to check\n',
      '2/4 files, 10 chunks, 1.7 chunks/s, ETA 6s\n',
      '4/4 files, 20 chunks, 3.1 chunks/s, ETA 0s\n',
    ]);
    assert.ok(out.writes.every((w) => !w.includes('\r')));
  });

  it('stays silent when disabled', () => {
    const out = stream(true);
    createProgressReporter(out, { enabled: false }).onProgress(fileDone(4, 400, 1));
    assert.deepEqual(out.writes, []);
  });

  it('formats durations', () => {
    assert.deepEqual(
      [formatDuration(0), formatDuration(59_400), formatDuration(65_000), formatDuration(3_726_000)],
      ['0s', '59s', '1m05s', '1h02m'],
    );
  });
});
