import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RATE_WINDOW_MS, RateEstimate, RemainingTime, WARM_UP_MS } from '../../src/cli/rate-estimate.js';

describe('RateEstimate', () => {
  it('says nothing during the warm-up, then measures from the first sample on, not from the start of the run', () => {
    const rate = new RateEstimate();
    // The first file finishes 20 s after the run started (the model loaded meanwhile): that time is not counted.
    rate.add(20_000, 10);
    assert.equal(rate.remainingMs(20_000, 1_000), undefined);
    rate.add(20_000 + WARM_UP_MS - 1, 40);
    assert.equal(rate.remainingMs(20_000 + WARM_UP_MS - 1, 1_000), undefined, 'still warming up');
    rate.add(20_000 + WARM_UP_MS, 70);
    // 60 units over the warm-up: the 930 left take 930 / 60 warm-ups.
    assert.equal(rate.remainingMs(20_000 + WARM_UP_MS, 1_000), (930 / 60) * WARM_UP_MS);
  });

  it('gives a 23-second run whose model took 5 s to load a sane estimate at every point, never minutes', () => {
    const rate = new RateEstimate();
    const estimates: number[] = [];
    for (let i = 1; i <= 100; i++) {
      const atMs = 5_000 + (i - 1) * 180;
      rate.add(atMs, i);
      const remaining = rate.remainingMs(atMs, 100);
      if (remaining !== undefined) estimates.push(remaining);
    }
    assert.ok(estimates.length > 30);
    assert.ok(Math.max(...estimates) <= 8_000, `at most the 7.8 s left once warmed up, got ${Math.max(...estimates)}`);
    assert.equal(estimates.at(-1), 0);
  });

  it('follows a change of pace within the window, and says unknown while nothing moves', () => {
    const rate = new RateEstimate();
    const paced = 2 * RATE_WINDOW_MS;
    for (let s = 0; s <= paced / 1000; s++) rate.add(s * 1000, s * 10);
    assert.equal(rate.rate(paced), 10 / 1000);
    const end = paced + RATE_WINDOW_MS;
    for (let s = paced / 1000 + 1; s <= end / 1000; s++)
      rate.add(s * 1000, (paced / 1000) * 10 + (s - paced / 1000) * 2);
    // The last window ran at 2 units a second.
    assert.equal(rate.rate(end), 2 / 1000);
    const stalled = end + RATE_WINDOW_MS + 1;
    assert.equal(rate.rate(stalled), 0);
    assert.equal(rate.remainingMs(stalled, 1e9), undefined);
  });
});

describe('RemainingTime', () => {
  it('is the mean of what the rate of files and the rate of bytes say', () => {
    const time = new RemainingTime();
    time.add(0, { filesDone: 1, bytesDone: 100 });
    assert.equal(time.warmedUp(WARM_UP_MS - 1), false);
    time.add(WARM_UP_MS, { filesDone: 11, bytesDone: 1_100 });
    // Files: 10 per warm-up, 89 left: 8.9 warm-ups. Bytes: 1,000 per warm-up, 8,900 left: 8.9 warm-ups too.
    assert.equal(time.remainingMs(WARM_UP_MS, { filesTotal: 100, bytesTotal: 10_000 }), 8.9 * WARM_UP_MS);
    // Bytes say 98.9 warm-ups, files 8.9: the mean, 53.9.
    assert.equal(time.remainingMs(WARM_UP_MS, { filesTotal: 100, bytesTotal: 100_000 }), 53.9 * WARM_UP_MS);
  });
});
