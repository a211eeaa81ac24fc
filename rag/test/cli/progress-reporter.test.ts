import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createProgressReporter, formatBytes, formatDuration, type Ticker } from '../../src/cli/progress-reporter.js';
import type { IndexProgress } from '../../src/indexer/types.js';

function stream(isTTY: boolean, columns?: number) {
  const writes: string[] = [];
  return { writes, isTTY, columns, write: (text: string) => writes.push(text) };
}

/** A ticker the test drives: `tick()` is one period passing. */
function manualTicker() {
  const ticks: (() => void)[] = [];
  const ticker: Ticker = (tick) => {
    ticks.push(tick);
    return () => {
      ticks.splice(ticks.indexOf(tick), 1);
    };
  };
  const tick = () => {
    for (const each of ticks) each();
  };
  return { ticker, tick, running: () => ticks.length };
}

const fileDone = (filesDone: number, bytesDone: number, chunksEmbedded: number, total = 4): IndexProgress => ({
  kind: 'file-done',
  vault: 'v',
  path: `f${filesDone}.md`,
  outcome: 'new',
  filesDone,
  filesTotal: total,
  bytesDone,
  bytesTotal: total * 100,
  chunksEmbedded,
});

const planned = (files = 4): IndexProgress => ({
  kind: 'planned',
  filesToCheck: files,
  bytesToCheck: files * 100,
  unchanged: 0,
  removed: 0,
});

describe('createProgressReporter', () => {
  it('redraws one bar line on a terminal: no ETA during the warm-up, then one from the measured rate', () => {
    const out = stream(true, 200);
    const clock = manualTicker();
    let now = 0;
    const reporter = createProgressReporter(out, { enabled: true, clock: () => now, ticker: clock.ticker });
    reporter.onProgress(planned(10));
    now = 20_000;
    reporter.onProgress(fileDone(1, 100, 20, 10));
    assert.equal(out.writes.at(-1), '\r\x1b[K[##......................] 1/10 files, 20 chunks, ETA estimating');
    now = 20_050;
    reporter.onProgress(fileDone(2, 200, 40, 10));
    assert.equal(out.writes.length, 2, 'redraws at most every 100 ms');
    now = 30_000;
    reporter.onProgress(fileDone(5, 500, 100, 10));
    // 4 files and 400 bytes in the 10 s after the first file: 5 files and 500 bytes left take 12.5 s;
    // 80 chunks in 10 s.
    assert.equal(out.writes.at(-1), '\r\x1b[K[############............] 5/10 files, 100 chunks, 8.0 chunks/s, ETA 13s');
    reporter.finish();
    assert.equal(out.writes.at(-1), '\r\x1b[K');
    assert.equal(clock.running(), 0, 'the ticker stops');
  });

  it('redraws every tick while one file takes long, the estimate growing', () => {
    const out = stream(true, 200);
    const clock = manualTicker();
    let now = 0;
    const reporter = createProgressReporter(out, { enabled: true, clock: () => now, ticker: clock.ticker });
    reporter.onProgress(planned(10));
    for (let s = 0; s <= 10; s += 2.5) {
      now = 1000 + s * 1000;
      reporter.onProgress(fileDone(1 + s / 2.5, (1 + s / 2.5) * 100, 1 + s / 2.5, 10));
    }
    assert.match(out.writes.at(-1) ?? '', /5\/10 files, 5 chunks, 0\.4 chunks\/s, ETA 13s$/);
    const before = out.writes.length;
    // Nothing finishes for another 10 s: the line is redrawn anyway, with the rate falling and the ETA growing.
    now = 21_000;
    clock.tick();
    assert.equal(out.writes.length, before + 1);
    assert.match(out.writes.at(-1) ?? '', /5\/10 files, 5 chunks, 0\.2 chunks\/s, ETA 25s$/);
  });

  it('fits the line into the terminal, and takes 80 columns where the terminal says 0 or nothing', () => {
    for (const columns of [0, undefined, 30]) {
      const out = stream(true, columns);
      const reporter = createProgressReporter(out, { enabled: true, clock: () => 0, ticker: manualTicker().ticker });
      reporter.onProgress(planned(4));
      reporter.onProgress(fileDone(4, 400, 9));
      const drawn = (out.writes.at(-1) ?? '').replace('\r\x1b[K', '');
      assert.equal(drawn.length, Math.min((columns || 80) - 1, drawn.length), String(columns));
      assert.ok(drawn.length > 0 && drawn.length <= (columns || 80) - 1, `${columns}: ${drawn}`);
    }
  });

  it('writes plain lines every interval when stderr is not a terminal, also between files, and always the last one', () => {
    const out = stream(false);
    const clock = manualTicker();
    let now = 0;
    const reporter = createProgressReporter(out, {
      enabled: true,
      clock: () => now,
      lineIntervalMs: 5000,
      ticker: clock.ticker,
    });
    reporter.onProgress({ kind: 'scanned', vault: 'v', files: 4 });
    reporter.onProgress(planned(4));
    now = 1000;
    reporter.onProgress(fileDone(1, 100, 5));
    now = 6000;
    reporter.onProgress(fileDone(2, 200, 10));
    now = 11_000;
    clock.tick();
    now = 11_500;
    reporter.onProgress(fileDone(3, 300, 15));
    now = 16_500;
    clock.tick();
    now = 17_000;
    reporter.onProgress(fileDone(4, 400, 20));
    assert.deepEqual(out.writes, [
      'v: 4 markdown files\n',
      '0 unchanged, 0 removed, 4 to check\n',
      '2/4 files, 10 chunks, ETA estimating\n',
      '2/4 files, 10 chunks, 0.5 chunks/s, ETA 20s\n',
      '3/4 files, 15 chunks, 0.6 chunks/s, ETA 8s\n',
      '4/4 files, 20 chunks, 0.9 chunks/s\n',
    ]);
    assert.ok(out.writes.every((w) => !w.includes('\r')));
  });

  it('shows a model download in bytes, and a line when a file is complete', () => {
    const out = stream(false);
    let now = 0;
    const reporter = createProgressReporter(out, {
      enabled: true,
      clock: () => now,
      lineIntervalMs: 1000,
      ticker: manualTicker().ticker,
    });
    const file = 'onnx/model_quantized.onnx';
    reporter.onProgress({ kind: 'model-download', file, url: 'http://hub/x' });
    for (let s = 1; s <= 3; s++) {
      now = s * 5000;
      reporter.onProgress({
        kind: 'model-download-progress',
        file,
        bytesDone: s * 1024 ** 2,
        bytesTotal: 10 * 1024 ** 2,
      });
    }
    now = 20_000;
    reporter.onProgress({
      kind: 'model-download-progress',
      file,
      bytesDone: 10 * 1024 ** 2,
      bytesTotal: 10 * 1024 ** 2,
    });
    assert.deepEqual(out.writes, [
      'downloading http://hub/x\n',
      `downloading ${file}: 1.0 MiB of 10.0 MiB\n`,
      `downloading ${file}: 2.0 MiB of 10.0 MiB\n`,
      `downloading ${file}: 3.0 MiB of 10.0 MiB, 204.8 KiB/s, ETA 35s\n`,
      `downloaded ${file}: 10.0 MiB\n`,
    ]);
  });

  it('stays silent when disabled', () => {
    const out = stream(true);
    createProgressReporter(out, { enabled: false }).onProgress(fileDone(4, 400, 1));
    assert.deepEqual(out.writes, []);
  });

  it('formats durations and sizes', () => {
    assert.deepEqual(
      [formatDuration(0), formatDuration(59_400), formatDuration(65_000), formatDuration(3_726_000)],
      ['0s', '59s', '1m05s', '1h02m'],
    );
    assert.deepEqual(
      [formatBytes(12), formatBytes(2048), formatBytes(118.3 * 1024 ** 2)],
      ['12 B', '2.0 KiB', '118.3 MiB'],
    );
  });
});
