import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RATE_WINDOW_MS, RateEstimate, WARM_UP_MS } from '../../src/cli/rate-estimate.js';

describe('RateEstimate', () => {
  it('says nothing during the warm-up, then measures from the first sample on, not from the start of the run', () => {
    const rate = new RateEstimate();
    // The first file finishes 20 s after the run started (the model loaded meanwhile): that time is not counted.
    rate.add(20_000, 10);
    assert.equal(rate.remainingMs(20_000, 1_000), undefined);
    rate.add(20_000 + WARM_UP_MS - 1, 40);
    assert.equal(rate.remainingMs(20_000 + WARM_UP_MS - 1, 1_000), undefined, 'still warming up');
    rate.add(23_000, 70);
    // 60 units in 3 s: 930 left take 46.5 s.
    assert.equal(rate.remainingMs(23_000, 1_000), 46_500);
  });

  it('gives a 23-second run a sane estimate at every point, never minutes', () => {
    // A run whose first file took 5 s (model load), then 1% of the bytes every 180 ms.
    const rate = new RateEstimate();
    const estimates: number[] = [];
    for (let i = 1; i <= 100; i++) {
      const atMs = 5_000 + (i - 1) * 180;
      rate.add(atMs, i);
      const remaining = rate.remainingMs(atMs, 100);
      if (remaining !== undefined) estimates.push(remaining);
    }
    assert.ok(estimates.length > 70);
    assert.ok(
      Math.max(...estimates) <= 18_000,
      `at most the 17.8 s left once warmed up, got ${Math.max(...estimates)}`,
    );
    assert.equal(estimates.at(-1), 0);
  });

  it('follows a change of pace within the window, and says unknown while nothing moves', () => {
    const rate = new RateEstimate();
    for (let s = 0; s <= 60; s++) rate.add(s * 1000, s * 10);
    assert.equal(rate.rate(60_000), 10 / 1000);
    for (let s = 61; s <= 100; s++) rate.add(s * 1000, 600 + (s - 60) * 2);
    // The last 20 s ran at 2 units a second.
    assert.equal(rate.rate(100_000), 2 / 1000);
    const stalled = 100_000 + RATE_WINDOW_MS + 1;
    assert.equal(rate.rate(stalled), 0);
    assert.equal(rate.remainingMs(stalled, 1_000), undefined);
  });
});
