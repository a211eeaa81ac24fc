import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { seededRandom } from '@notegate/kit/testing';
import type { RowRange } from '../../src/vectors/vector-scan.js';
import { Bm25Ranking, type SegmentedPhrase } from '../../src/words/bm25-ranking.js';
import { countDeletedPostings } from '../../src/words/deleted-postings.js';
import type { Fts5Totals } from '../../src/words/fts5-totals.js';
import { boundLeft, byBound, cannotReach, firstWalked, KthLargest } from '../../src/words/max-score.js';
import { firstAtLeast } from '../../src/words/posting-lookup.js';
import { saturationBound } from '../../src/words/term-bounds.js';
import { compareTerms, WordPostings } from '../../src/words/word-postings.js';
import type { WordSegment } from '../../src/words/word-segment.js';

/** Terms that share prefixes (`ce*` is several terms), from everywhere to nearly nowhere. */
const TERMS = [
  'a',
  'b',
  'ce',
  'cel',
  'cell',
  'cells',
  'd',
  'e',
  'f',
  'g',
  'h',
  'k',
  'ke',
  'key',
  'keys',
  'm',
  'n',
  'p',
  'q',
  'r',
];
/** Per term, the share of rows holding it: a few terms in most rows, most terms in few. */
const SHARE = TERMS.map((_, t) => 0.9 / (1 + t) ** 1.3);

interface Corpus {
  readonly segments: WordSegment[];
  readonly totals: Fts5Totals;
}

/**
 * Random segments: rows of random terms and frequencies (title-like weights
 * up to 3 per occurrence), some rows copied unchanged under another chunk id
 * (exact ties), rows deleted, each term's postings in chunk id order, row
 * order or none.
 */
function corpusOf(random: () => number): Corpus {
  const segmentCount = 1 + Math.floor(random() * 3);
  let nextChunkId = 1;
  let liveRows = 0;
  let tokens = 0;
  const segments: WordSegment[] = [];
  for (let s = 0; s < segmentCount; s += 1) {
    const rowCount = 1 + Math.floor(random() * 160);
    const rowTerms: Map<number, number>[] = [];
    for (let row = 0; row < rowCount; row += 1) {
      const copyOf = row > 0 && random() < 0.15 ? rowTerms[Math.floor(random() * row)] : undefined;
      const terms = new Map(copyOf ?? []);
      if (copyOf === undefined) {
        TERMS.forEach((_, t) => {
          if (random() < (SHARE[t] as number)) terms.set(t, 1 + Math.floor(random() * (random() < 0.1 ? 12 : 3)));
        });
      }
      rowTerms.push(terms);
    }
    const lengths = Uint32Array.from(rowTerms, (terms) => [...terms.values()].reduce((a, f) => a + f, 0) + 3);
    // Chunk ids ascending by row, or in two interleaved runs (rows grouped by vault, ids given file by file).
    const half = Math.ceil(rowCount / 2);
    const interleaved = random() < 0.5;
    const chunkIds = Float64Array.from(lengths, (_, row) =>
      interleaved ? nextChunkId + (row < half ? 2 * row + 1 : 2 * (row - half)) : nextChunkId + row,
    );
    nextChunkId += 2 * rowCount + 1;
    // Each term's postings in row order, as every segment lists them (`sortPostingsByRow`).
    const byTerm = TERMS.map((_, t) => rowTerms.flatMap((terms, row) => (terms.has(t) ? [row] : [])));
    const offsets = new Uint32Array(TERMS.length + 1);
    byTerm.forEach((rows, t) => {
      offsets[t + 1] = (offsets[t] as number) + rows.length;
    });
    const postings = new WordPostings({
      terms: [...TERMS].sort(compareTerms),
      offsets,
      rows: Uint32Array.from(byTerm.flat()),
      frequencies: Uint16Array.from(byTerm.flatMap((rows, t) => rows.map((row) => rowTerms[row]?.get(t) ?? 0))),
      lengths,
    });
    const deleted = random() < 0.6 ? Uint8Array.from(lengths, () => (random() < 0.2 ? 1 : 0)) : undefined;
    segments.push({
      postings,
      rows: { chunkIds, partitions: [] },
      deleted,
      deletedPostings: deleted && random() < 0.5 ? countDeletedPostings(postings, deleted) : undefined,
    });
    lengths.forEach((length, row) => {
      tokens += length;
      if (deleted?.[row] !== 1) liveRows += 1;
    });
  }
  // FTS5 keeps deleted rows in its totals.
  const extraRows = Math.floor(random() * 20);
  return { segments, totals: { rows: liveRows + extraRows, tokens: tokens + extraRows * 7 } };
}

/** Ascending disjoint row ranges: the whole segment, nothing, or random pieces. */
function rangesOf(random: () => number, rowCount: number): RowRange[] {
  const r = random();
  if (r < 0.4) return [[0, rowCount]];
  if (r < 0.45) return [];
  const ranges: RowRange[] = [];
  let start = Math.floor(random() * 10);
  while (start < rowCount) {
    const end = Math.min(rowCount, start + 1 + Math.floor(random() * 40));
    ranges.push([start, end]);
    start = end + 1 + Math.floor(random() * 30);
  }
  return ranges;
}

function queryOf(random: () => number, segments: readonly WordSegment[]): SegmentedPhrase[] {
  const count = 1 + Math.floor(random() * 10);
  return Array.from({ length: count }, () => {
    const prefix = random() < 0.15;
    const token = prefix
      ? (['c', 'ce', 'ke', 'k'][Math.floor(random() * 4)] as string)
      : (TERMS[Math.floor(random() * TERMS.length)] as string);
    return segments.map(({ postings }) => postings.range(token, prefix));
  });
}

/**
 * The ranking without any pruning: every live row in range scored, phrase
 * after phrase in the query's order, with FTS5's operations.
 */
function exhaustive(
  ranking: Bm25Ranking,
  corpus: Corpus,
  phrases: readonly SegmentedPhrase[],
  ranges: readonly (readonly RowRange[])[],
  limit: number,
) {
  const averageLength = corpus.totals.tokens / corpus.totals.rows;
  const idfs = phrases.map((phrase) => ranking.idf(ranking.documentFrequency(phrase)));
  const all: { row: number; chunkId: number; score: number }[] = [];
  corpus.segments.forEach(({ postings, rows, deleted }, s) => {
    for (let row = 0; row < postings.rowCount; row += 1) {
      if (deleted?.[row] === 1 || !(ranges[s] ?? []).some(([start, end]) => row >= start && row < end)) continue;
      let score = 0;
      phrases.forEach((phrase, p) => {
        const range = phrase[s];
        if (range === undefined) return;
        let f = 0;
        for (let i = postings.offsets[range.first] as number; i < (postings.offsets[range.end] as number); i += 1) {
          if (postings.rows[i] === row) f += postings.frequencies[i] as number;
        }
        if (f === 0) return;
        const norm = 1.2 * (1 - 0.75 + (0.75 * (postings.lengths[row] as number)) / averageLength);
        score = score + (idfs[p] as number) * ((f * 2.2) / (f + norm));
      });
      if (score > 0) all.push({ row, chunkId: rows.chunkIds[row] as number, score });
    }
  });
  return all.sort((a, b) => b.score - a.score || a.chunkId - b.chunkId).slice(0, limit);
}

describe('Bm25Ranking', () => {
  it('ranks as scoring every row does, row for row and bit for bit, however much it prunes', () => {
    const random = seededRandom(26);
    let compared = 0;
    for (let round = 0; round < 300; round += 1) {
      const corpus = corpusOf(random);
      // Every segment pruned, however small.
      const ranking = new Bm25Ranking(corpus.segments, corpus.totals, Math.log, 0);
      const rows = corpus.segments.reduce((sum, { postings }) => sum + postings.rowCount, 0);
      for (let q = 0; q < 8; q += 1) {
        const phrases = queryOf(random, corpus.segments);
        const ranges = corpus.segments.map(({ postings }) => rangesOf(random, postings.rowCount));
        const limit = [1, 2, 5, 10, 40, rows, rows + 3][Math.floor(random() * 7)] as number;
        const expected = exhaustive(ranking, corpus, phrases, ranges, limit);
        const ranked = ranking.rank(phrases, (s) => ranges[s] ?? [], limit);
        assert.deepEqual(ranked, expected, `round ${round}, query ${q}, limit ${limit}`);
        // And again: the scratch arrays are left clean.
        assert.deepEqual(
          ranking.rank(phrases, (s) => ranges[s] ?? [], limit),
          expected,
        );
        compared += expected.length;
      }
    }
    assert.ok(compared > 20_000, `compared ${compared} rows`);
  });
});

describe('MaxScore', () => {
  it('prunes a bound only strictly below the threshold, with room for rounding', () => {
    // [upper bound, threshold, cannot reach]
    const cases: readonly (readonly [number, number, boolean])[] = [
      [1, 2, true],
      [2, 2, false],
      [2 - 1e-12, 2, false],
      [2 - 1e-6, 2, true],
      [5, Number.NEGATIVE_INFINITY, false],
      [0, 1e-9, true],
    ];
    for (const [bound, threshold, expected] of cases) {
      assert.equal(cannotReach(bound, threshold), expected, `${bound} against ${threshold}`);
    }
  });

  it('walks the cheap phrases and the largest bounds first, unless that is most of the postings', () => {
    const phrases = (list: readonly (readonly [number, number])[]) =>
      list.map(([bound, postings]) => ({ bound, postings }));
    // [phrases as [bound, postings], walked first]
    const cases: readonly (readonly [string, readonly (readonly [number, number])[], number[] | undefined])[] = [
      [
        'rare terms first, common ones left',
        [
          [1, 5000],
          [9, 40],
          [0.1, 9000],
          [8, 60],
          [2, 3000],
        ],
        [1, 3],
      ],
      [
        'a cheap phrase is walked whatever its bound',
        [
          [1, 5000],
          [9, 700],
          [0.1, 20],
          [8, 800],
          [2, 4000],
        ],
        [2, 1, 3],
      ],
      [
        'ties in the order given',
        [
          [5, 1000],
          [5, 1000],
          [5, 1000],
          [1, 10000],
        ],
        [0, 1],
      ],
      [
        'the bounds to walk hold most postings',
        [
          [9, 9000],
          [1, 100],
          [1, 100],
        ],
        undefined,
      ],
      ['one phrase', [[3, 10]], undefined],
      ['none', [], []],
    ];
    for (const [name, list, expected] of cases) assert.deepEqual(firstWalked(phrases(list)), expected, name);
    const list = phrases([
      [1, 5],
      [4, 5],
      [0.5, 5],
      [4, 5],
      [2, 5],
    ]);
    assert.deepEqual(byBound(list, [1]), [3, 4, 0, 2]);
    assert.equal(boundLeft(list, [1, 4]), 5.5);
    assert.equal(boundLeft(list, []), 11.5);
  });

  it('finds the k-th largest value', () => {
    const values = Float64Array.from([3, 9, 1, 9, 4, 7, 2]);
    // [k, k-th largest]
    const cases: readonly (readonly [number, number])[] = [
      [1, 9],
      [2, 9],
      [3, 7],
      [4, 4],
      [7, 1],
      [8, Number.NEGATIVE_INFINITY],
      [0, Number.NEGATIVE_INFINITY],
    ];
    for (const [k, expected] of cases) {
      const kth = new KthLargest(k);
      for (const value of values) if (kth.admits(value)) kth.offer(value);
      assert.equal(kth.value, expected, `k ${k}`);
    }
  });
});

describe('firstAtLeast', () => {
  it('finds the first key at least the one asked, from any start, in runs of any length', () => {
    const keys = [2, 3, 5, 8, 13, 21, 34, 55, 89, 144];
    const keyAt = (i: number) => keys[i] as number;
    for (let from = 0; from <= keys.length; from += 1) {
      for (let key = 0; key <= 150; key += 1) {
        let expected = from;
        while (expected < keys.length && keyAt(expected) < key) expected += 1;
        assert.equal(firstAtLeast(keyAt, from, keys.length, key), expected, `key ${key} from ${from}`);
      }
    }
    assert.equal(firstAtLeast(keyAt, 3, 3, 100), 3, 'an empty run');
  });
});

describe('saturationBound', () => {
  it("is at least every row's f/(f + norm), for a term or a prefix, at any average length", () => {
    // kei: rows 0, 1 (f 1, 3); key: rows 0, 2 (f 1, 5); keyboard: row 1 (f 2).
    const postings = new WordPostings({
      terms: ['kei', 'key', 'keyboard'],
      offsets: Uint32Array.from([0, 2, 4, 5]),
      rows: Uint32Array.from([0, 1, 0, 2, 1]),
      frequencies: Uint16Array.from([1, 3, 1, 5, 2]),
      lengths: Uint32Array.from([4, 30, 9]),
    });
    const saturation = (f: number, length: number, averageLength: number) =>
      f / (f + 1.2 * (1 - 0.75 + (0.75 * length) / averageLength));
    // [phrase, per row its frequency]
    const cases: readonly (readonly [string, { first: number; end: number }, readonly number[]])[] = [
      ['kei', postings.range('kei', false), [1, 3, 0]],
      ['key', postings.range('key', false), [1, 0, 5]],
      ['ke* (every term, summed per row)', postings.range('ke', true), [2, 5, 5]],
    ];
    for (const averageLength of [1, 10, 200]) {
      for (const [name, phrase, frequencies] of cases) {
        const bound = saturationBound(postings, phrase, averageLength, 1.2, 0.75);
        const reached = Math.max(
          ...frequencies.map((f, row) => (f === 0 ? 0 : saturation(f, postings.lengths[row] as number, averageLength))),
        );
        // Computed in another order than a score, the bound may fall short of it by rounding (the slack of `cannotReach`).
        assert.ok(
          bound >= reached * (1 - 1e-12) && bound < 1,
          `${name} at ${averageLength}: ${bound} against ${reached}`,
        );
        if (name === 'kei') assert.ok(bound - reached < 0.2, `${name} at ${averageLength}: a useful bound`);
      }
    }
  });
});
