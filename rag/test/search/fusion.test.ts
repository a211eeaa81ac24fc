import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { seededRandom } from '@notegate/kit/testing';
import { ndcgAt } from '../../src/eval/metrics.js';
import { DEFAULT_FUSION, type FusionSettings, fuse, type LegHit, legAgreement } from '../../src/search/fusion.js';

const RRF: FusionSettings = { method: 'rrf', k: 60, weights: { dense: 1, lexical: 1 }, depth: 100, guard: undefined };
const CONVEX: FusionSettings = { ...RRF, method: 'convex' };

/** Hits of the ids in order, scores falling by one from `top`. */
function leg(ids: readonly number[], top = 100): LegHit[] {
  return ids.map((chunkId, i) => ({ chunkId, score: top - i }));
}

function ids(fused: ReturnType<typeof fuse>): number[] {
  return fused.map((f) => f.chunkId);
}

describe('fusion', () => {
  it('RRF sums weight/(k + rank), ranks counted from 1', () => {
    // dense: 10, 20, 30 — lexical: 30, 40
    assert.deepEqual(
      fuse(leg([10, 20, 30]), leg([30, 40]), RRF).map((f) => [f.chunkId, f.score, f.denseRank, f.lexicalRank]),
      [
        [30, 1 / 63 + 1 / 61, 3, 1],
        [10, 1 / 61, 1, undefined],
        // 40 and 20 tie at 1/62: the lexical hit first.
        [40, 1 / 62, undefined, 2],
        [20, 1 / 62, 2, undefined],
      ],
    );
  });

  const cases: readonly {
    name: string;
    dense: number[];
    lexical: number[];
    settings: FusionSettings;
    expected: number[];
  }[] = [
    {
      name: 'a tie goes to the lexical hit',
      dense: [10, 20],
      lexical: [30, 40],
      settings: RRF,
      expected: [30, 10, 40, 20],
    },
    {
      name: 'equal sums: the better lexical rank first',
      dense: [5, 6],
      lexical: [6, 5],
      settings: RRF,
      expected: [6, 5],
    },
    { name: 'one leg empty keeps the other order', dense: [9, 3], lexical: [], settings: RRF, expected: [9, 3] },
    { name: 'a repeated id counts at its first rank', dense: [], lexical: [7, 8, 7], settings: RRF, expected: [7, 8] },
    { name: 'nothing in, nothing out', dense: [], lexical: [], settings: RRF, expected: [] },
    {
      name: 'a heavier dense weight puts the dense hits first',
      dense: [1, 2],
      lexical: [3, 4],
      settings: { ...RRF, weights: { dense: 1.5, lexical: 1 } },
      expected: [1, 2, 3, 4],
    },
    {
      name: 'a small k makes the first ranks count more than agreement further down',
      // 9 is third in both legs; 1 and 2 top one leg each. k = 60: 2/63 beats 1/61; k = 0.5: 1/1.5 beats 2/3.5.
      dense: [1, 5, 9],
      lexical: [2, 6, 9],
      settings: { ...RRF, k: 0.5 },
      expected: [2, 1, 9, 6, 5],
    },
    {
      name: 'RRF with k = 60 rewards agreement',
      dense: [1, 5, 9],
      lexical: [2, 6, 9],
      settings: RRF,
      expected: [9, 2, 1, 6, 5],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(ids(fuse(leg(c.dense), leg(c.lexical), c.settings)), c.expected);
    });
  }

  it('convex: weights times the min–max normalised scores of each leg', () => {
    const dense = [
      { chunkId: 1, score: 0.9 },
      { chunkId: 2, score: 0.7 },
      { chunkId: 3, score: 0.5 },
    ];
    const lexical = [
      { chunkId: 3, score: 20 },
      { chunkId: 4, score: 10 },
    ];
    const fused = fuse(dense, lexical, { ...CONVEX, weights: { dense: 0.4, lexical: 0.6 } });
    assert.deepEqual(
      fused.map((f) => [f.chunkId, Number(f.score.toFixed(12))]),
      [
        [3, 0.6],
        [1, 0.4],
        [2, 0.2],
        [4, 0],
      ],
    );
  });

  it('convex: a leg ranked in tiers is made non-increasing first, so normalising never reorders it', () => {
    // The second tier's scale is larger than the first's: 4 must stay behind 3.
    const lexical = [
      { chunkId: 3, score: 5 },
      { chunkId: 4, score: 50 },
      { chunkId: 5, score: 1 },
    ];
    assert.deepEqual(
      fuse([], lexical, CONVEX).map((f) => [f.chunkId, f.score]),
      [
        [3, 1],
        [4, 1],
        [5, 0],
      ],
    );
    // A leg of equal scores maps to 1.
    assert.deepEqual(
      fuse(
        leg([1, 2], 3).map((h) => ({ ...h, score: 3 })),
        [],
        CONVEX,
      ).map((f) => f.score),
      [1, 1],
    );
  });

  it('measures agreement as the shared share of both legs top candidates, over the shorter list', () => {
    const table: [number[], number[], number, number | undefined][] = [
      [[1, 2, 3, 4], [4, 3, 2, 1], 4, 1],
      [[1, 2, 3, 4], [5, 6, 7, 8], 4, 0],
      [[1, 2, 3, 4], [2, 9], 4, 0.5],
      [[1, 2, 3, 4], [3, 4, 1, 2], 2, 0],
      [[1, 2], [], 10, undefined],
      [[], [1], 10, undefined],
    ];
    for (const [dense, lexical, depth, expected] of table) {
      assert.equal(legAgreement(leg(dense), leg(lexical), depth), expected, `${dense} / ${lexical} @${depth}`);
    }
  });

  it('the guard cuts the dense weight in proportion to the agreement below `full`', () => {
    const guarded: FusionSettings = { ...RRF, guard: { depth: 4, full: 0.5 } };
    // Agreement 1/4 = half of full: the dense weight is halved.
    const fused = fuse(leg([1, 2, 3, 9]), leg([9, 5, 6, 7]), guarded);
    const one = fused.find((f) => f.chunkId === 1);
    assert.equal(one?.score, 0.5 / 61);
    // Agreement at or above full: plain RRF.
    assert.deepEqual(
      fuse(leg([1, 2, 3, 4]), leg([4, 3, 5, 6]), guarded),
      fuse(leg([1, 2, 3, 4]), leg([4, 3, 5, 6]), RRF),
    );
    // A leg with nothing to protect: plain RRF.
    assert.deepEqual(fuse(leg([1, 2]), [], guarded), fuse(leg([1, 2]), [], RRF));
  });

  it('the default is a complete setting within the search limits', () => {
    assert.ok(DEFAULT_FUSION.depth >= 1 && DEFAULT_FUSION.depth <= 1000);
    assert.ok(DEFAULT_FUSION.weights.dense >= 0 && DEFAULT_FUSION.weights.lexical > 0);
  });
});

function shuffled(values: readonly number[], random: () => number): number[] {
  const out = [...values];
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] ?? 0, out[i] ?? 0];
  }
  return out;
}

describe('fusion: no worse than the best leg when one leg is noise', () => {
  const CORPUS = 2000;
  const QUERIES = 200;
  /**
   * Per query: one relevant chunk, which a good leg ranks within its first
   * few places among other plausible chunks; a noise leg is a random order of
   * the corpus, as from a model that does not know the query's language.
   */
  function syntheticQueries(seed: number) {
    const random = seededRandom(seed);
    const corpus = Array.from({ length: CORPUS }, (_, i) => i);
    return Array.from({ length: QUERIES }, () => {
      const pool = shuffled(corpus, random).slice(0, 100);
      const relevant = pool[Math.floor(random() * 3)] ?? 0;
      return { relevant, good: pool, noise: shuffled(corpus, random).slice(0, 100) };
    });
  }

  function meanNdcg(lists: readonly number[][], relevant: readonly number[]): number {
    return (
      lists.reduce((sum, list, i) => sum + ndcgAt(10, list.map(String), new Map([[String(relevant[i]), 1]])), 0) /
      lists.length
    );
  }

  const guarded: FusionSettings = { ...RRF, guard: { depth: 10, full: 0.2 } };

  it('with a good lexical leg and a noise dense leg, guarded fusion keeps the lexical quality; plain RRF does not', () => {
    const queries = syntheticQueries(7);
    const relevant = queries.map((q) => q.relevant);
    const lexicalOnly = meanNdcg(
      queries.map((q) => q.good),
      relevant,
    );
    const plain = meanNdcg(
      queries.map((q) => ids(fuse(leg(q.noise), leg(q.good), RRF))),
      relevant,
    );
    const withGuard = meanNdcg(
      queries.map((q) => ids(fuse(leg(q.noise), leg(q.good), guarded))),
      relevant,
    );
    assert.ok(lexicalOnly > 0.7, `the good leg is good: ${lexicalOnly}`);
    assert.ok(plain < lexicalOnly - 0.05, `plain RRF is dragged down by the noise: ${plain} vs ${lexicalOnly}`);
    assert.ok(withGuard >= lexicalOnly - 0.01, `the guard keeps the lexical leg: ${withGuard} vs ${lexicalOnly}`);
  });

  it('with two legs that agree, the guard changes nothing', () => {
    const random = seededRandom(11);
    for (let q = 0; q < 50; q += 1) {
      const lexical = shuffled(
        Array.from({ length: 100 }, (_, i) => i),
        random,
      );
      // The dense leg shares its first ten with the lexical leg's first ten, in another order.
      const dense = [...shuffled(lexical.slice(0, 10), random), ...shuffled(lexical.slice(10), random)];
      assert.deepEqual(fuse(leg(dense), leg(lexical), guarded), fuse(leg(dense), leg(lexical), RRF));
    }
  });
});
