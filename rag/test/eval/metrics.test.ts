import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dedupe, meanScores, ndcgAt, recallAt, scoreQuery } from '../../src/eval/metrics.js';

const judged = (grades: Record<string, number>) => new Map(Object.entries(grades));
const close = (actual: number, expected: number) =>
  assert.ok(Math.abs(actual - expected) < 1e-12, `${actual} ≈ ${expected}`);

describe('eval metrics (trec_eval definitions)', () => {
  it('nDCG@10 with graded gains and the ideal order of every judged document (hand-computed)', () => {
    // DCG = 0/log2(2) + 1/log2(3) + 2/log2(4); IDCG = 2/log2(2) + 1/log2(3).
    const dcg = 1 / Math.log2(3) + 2 / 2;
    const idcg = 2 + 1 / Math.log2(3);
    close(ndcgAt(10, ['d3', 'd1', 'd2'], judged({ d1: 1, d2: 2 })), dcg / idcg);
    close(ndcgAt(10, ['d2', 'd1'], judged({ d1: 1, d2: 2 })), 1);
    // A relevant document the ranking never reaches still counts in the ideal order.
    close(ndcgAt(10, ['d1'], judged({ d1: 1, d9: 1 })), 1 / (1 + 1 / Math.log2(3)));
  });

  it('counts only the top k, ignores grade-0 judgments, and scores 0 without relevant documents or hits', () => {
    const ranked = Array.from({ length: 12 }, (_, i) => `x${i}`);
    const late = judged({ x10: 1 });
    assert.equal(ndcgAt(10, ranked, late), 0);
    assert.equal(recallAt(10, ranked, late), 0);
    assert.equal(recallAt(100, ranked, late), 1);
    assert.equal(ndcgAt(10, ['a'], judged({ a: 0 })), 0);
    assert.equal(recallAt(10, ['a'], judged({ a: 0 })), 0);
    assert.equal(ndcgAt(10, [], judged({ a: 1 })), 0);
  });

  it('recall@k over every relevant document (hand-computed)', () => {
    close(recallAt(10, ['a', 'x', 'b'], judged({ a: 1, b: 2, c: 1 })), 2 / 3);
    close(recallAt(1, ['a', 'x', 'b'], judged({ a: 1, b: 2, c: 1 })), 1 / 3);
  });

  it('ranks a document at its best chunk: repeats are dropped before scoring', () => {
    assert.deepEqual(dedupe(['a', 'a', 'b', 'a', 'c', 'b']), ['a', 'b', 'c']);
    // Without dedupe the second "a" would push "b" to rank 3.
    close(scoreQuery(['a', 'a', 'b'], judged({ b: 1 })).ndcgAt10, 1 / Math.log2(3));
  });

  it('averages over every judged query, a query without hits counting 0', () => {
    const scores = [scoreQuery(['a'], judged({ a: 1 })), scoreQuery([], judged({ b: 1 }))];
    assert.deepEqual(meanScores(scores), { ndcgAt10: 0.5, recallAt10: 0.5, recallAt100: 0.5 });
    assert.deepEqual(meanScores([]), { ndcgAt10: 0, recallAt10: 0, recallAt100: 0 });
  });
});
