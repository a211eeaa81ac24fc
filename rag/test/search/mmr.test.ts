import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mmrOrder, normalize } from '../../src/search/mmr.js';

/** Three candidates: 0 and 1 are near-duplicates, 2 is different. */
const SIMILARITY = [
  [1, 0.9, 0.1],
  [0.9, 1, 0.2],
  [0.1, 0.2, 1],
];
const sim = (a: number, b: number) => SIMILARITY[a]?.[b] ?? 0;

describe('maximal marginal relevance', () => {
  it('normalizes relevance to [0, 1] over the pool (min–max), all 1 when equal', () => {
    assert.deepEqual(normalize([0.5, 0.25, 0]), [1, 0.5, 0]);
    assert.deepEqual(normalize([3, 1]), [1, 0]);
    assert.deepEqual(normalize([0.2, 0.2]), [1, 1]);
  });

  it('keeps the relevance order at lambda 1', () => {
    assert.deepEqual(mmrOrder([0.5, 0.3, 0.1], sim, 1, 3), [0, 1, 2]);
  });

  it('skips the near-duplicate at lambda 0.5 (hand-computed)', () => {
    // rel = [1, 0.5, 0]; similarity pairs 0.9, 0.1, 0.2 normalize to 1, 0, 0.125.
    // Pick 0. Then 1: 0.5·0.5 − 0.5·1 = −0.25; 2: 0.5·0 − 0.5·0 = 0 → 2. Then 1.
    assert.deepEqual(mmrOrder([0.5, 0.3, 0.1], sim, 0.5, 3), [0, 2, 1]);
  });

  it('at lambda 0.8 the relevance gap still wins (hand-computed)', () => {
    // After 0: candidate 1: 0.8·0.5 − 0.2·1 = 0.2; candidate 2: 0.8·0 − 0.2·0 = 0 → 1.
    assert.deepEqual(mmrOrder([0.5, 0.3, 0.1], sim, 0.8, 2), [0, 1]);
  });

  it('normalizes similarity like relevance, so cosines in a narrow band still separate (hand-computed)', () => {
    // Cosines of one topic: 0.95 (0–1), 0.80 (0–2), 0.85 (1–2) normalize to 1, 0, 1/3; rel = [1, 0.875, 0].
    // After 0 at lambda 0.5: candidate 1: 0.4375 − 0.5·1 = −0.0625; candidate 2: 0 − 0.5·0 = 0 → 2.
    // (Raw cosines would pick the near-duplicate 1: 0.4375 − 0.475 = −0.0375 against 0 − 0.4.)
    const band = [
      [1, 0.95, 0.8],
      [0.95, 1, 0.85],
      [0.8, 0.85, 1],
    ];
    assert.deepEqual(
      mmrOrder([0.5, 0.45, 0.1], (a, b) => band[a]?.[b] ?? 0, 0.5, 3),
      [0, 2, 1],
    );
  });

  it('returns at most count, ties to the earlier candidate', () => {
    assert.deepEqual(
      mmrOrder([1, 1, 1], () => 0, 0.5, 2),
      [0, 1],
    );
    assert.deepEqual(mmrOrder([], sim, 0.5, 3), []);
  });
});
