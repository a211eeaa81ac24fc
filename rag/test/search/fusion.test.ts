import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_FUSION_WEIGHTS, fuseRrf, RRF_K } from '../../src/search/rrf.js';

describe('reciprocal rank fusion', () => {
  it('sums 1/(60 + rank) over the lists, ranks counted from 1', () => {
    // dense: 10, 20, 30 — lexical: 30, 40
    const fused = fuseRrf([10, 20, 30], [30, 40]);
    assert.equal(RRF_K, 60);
    assert.deepEqual(
      fused.map((f) => [f.chunkId, f.score, f.denseRank, f.lexicalRank]),
      [
        [30, 1 / 63 + 1 / 61, 3, 1],
        [10, 1 / 61, 1, undefined],
        // 40 and 20 tie at 1/62: the lexical hit first.
        [40, 1 / 62, undefined, 2],
        [20, 1 / 62, 2, undefined],
      ],
    );
  });

  it('breaks a tie by the better lexical rank, then the better dense rank, then the lower chunk id', () => {
    // 20 is dense #2 only, 40 lexical #2 only: equal scores 1/62, the lexical one first.
    const fused = fuseRrf([10, 20], [30, 40]);
    assert.deepEqual(
      fused.map((f) => f.chunkId),
      [30, 10, 40, 20],
    );
    // Same rank in both lists for different chunks, both present in both: 5 = d1 + l2, 6 = d2 + l1.
    assert.deepEqual(
      fuseRrf([5, 6], [6, 5]).map((f) => f.chunkId),
      [6, 5],
    );
    assert.deepEqual(
      fuseRrf([9, 3], []).map((f) => f.chunkId),
      [9, 3],
    );
  });

  it('weighs each leg: weight / (60 + rank)', () => {
    const fused = fuseRrf([10, 20], [20, 30], { dense: 2, lexical: 0.5 });
    assert.deepEqual(
      fused.map((f) => [f.chunkId, f.score]),
      [
        [20, 2 / 62 + 0.5 / 61],
        [10, 2 / 61],
        [30, 0.5 / 62],
      ],
    );
    assert.deepEqual(DEFAULT_FUSION_WEIGHTS, { dense: 1, lexical: 1 });
  });

  it('keeps the order of a single list when the other is empty, and counts a repeated id once', () => {
    assert.deepEqual(
      fuseRrf([], [7, 8, 7]).map((f) => [f.chunkId, f.lexicalRank]),
      [
        [7, 1],
        [8, 2],
      ],
    );
    assert.deepEqual(fuseRrf([], []), []);
  });
});
