import { pageFloat64, pageUint32 } from '../vectors/page-arrays.js';
import { type ScoredRow, TopK } from '../vectors/top-k.js';
import type { RowRange } from '../vectors/vector-scan.js';
import type { Fts5Totals } from './fts5-totals.js';
import { boundLeft, byBound, cannotReach, firstWalked, kthLargest } from './max-score.js';
import { firstAtLeast } from './posting-lookup.js';
import { inChunkOrder, saturationBound } from './term-bounds.js';
import type { TermRange, WordPostings } from './word-postings.js';
import type { WordSegment } from './word-segment.js';

/** FTS5's bm25() parameters (docs/retrieval.md#lexical-leg): fixed in FTS5, as is the IDF's floor. */
const K1 = 1.2;
const B = 0.75;
const K1_PLUS_ONE = K1 + 1;
const MIN_IDF = 1e-6;
/**
 * Pruning pays where a segment's per-row arrays (a score and a length, 12
 * bytes a row) outgrow the processor's second-level cache, so that each
 * posting scored is a cache miss: measured faster at a million rows and
 * slower at 100,000, where scoring every posting is cheap
 * (docs/retrieval.md#lexical-leg).
 */
const PRUNED_FROM_ROWS = 1 << 18;

/** A phrase of the query: its terms in each segment, in the order of the segments. */
export type SegmentedPhrase = readonly TermRange[];

/**
 * Per-row arrays of one segment, reused by every search (searches run one at
 * a time). Nothing here depends on the state of the index: a commit changes
 * the average length, and a per-row array of length norms would have to be
 * recomputed over every row of every segment on the first search after it
 * (docs/retrieval.md#writes-at-scale), so each norm is computed where a
 * posting is scored.
 */
interface Scratch {
  /** Each row's score so far; 0 for every row between two searches. */
  readonly scores: Float64Array;
  /** The rows scored by this search, the first `scoredCount`. */
  readonly scored: Uint32Array;
  scoredCount: number;
  readonly frequencies: Float64Array;
  readonly touched: Uint32Array;
  /** A bit a row, set for the rows still in the running while a pruned search scores them (`rankPruned`); 0 between searches. */
  readonly marks: Uint32Array;
  /** Those rows, ascending (`ascending`). */
  readonly candidates: Uint32Array;
}

const scratches = new WeakMap<WordPostings, Scratch>();

/**
 * FTS5's `bm25()` over an OR of phrases, computed from the postings of every
 * segment of one state of the index the way FTS5 computes it over the whole
 * table, operation for operation, so that every score is FTS5's to the last
 * bit (docs/retrieval.md#lexical-leg): per phrase an IDF of
 * `ln((N − n + 0.5) / (n + 0.5))`, floored at 1e-6, with n counted over the
 * live rows of all segments and N from FTS5's totals, and per row
 * `Σ idf · f·(k1 + 1) / (f + k1·(1 − b + b·D/avgdl))`, summed in the query's
 * phrase order, where f is the phrase's column-weighted frequency in the row
 * and D the row's length. A row lives in one segment, so its sum is the same
 * whichever segments the index is made of. The logarithm is SQLite's own
 * (`naturalLog`): the C library's differs from JavaScript's in the last bit
 * for some inputs.
 */
export class Bm25Ranking {
  private readonly idfs = new Map<number, number>();
  private readonly averageLength: number;

  /**
   * `prunedFromRows`: the rows from which a segment is ranked with pruning
   * (`rankPruned`); smaller ones are scored whole.
   */
  constructor(
    private readonly segments: readonly WordSegment[],
    private readonly totals: Fts5Totals,
    private readonly naturalLog: (x: number) => number,
    private readonly prunedFromRows = PRUNED_FROM_ROWS,
  ) {
    this.averageLength = totals.tokens / totals.rows;
  }

  /** Live rows holding the phrase, over every segment: FTS5's n. */
  documentFrequency(phrase: SegmentedPhrase): number {
    let count = 0;
    this.segments.forEach((segment, s) => {
      const range = phrase[s];
      if (range) count += segment.postings.documentFrequency(range, segment.deleted, segment.deletedPostings);
    });
    return count;
  }

  /** The IDF FTS5 gives a phrase found in `documentFrequency` rows. */
  idf(documentFrequency: number): number {
    let idf = this.idfs.get(documentFrequency);
    if (idf === undefined) {
      const n = documentFrequency;
      idf = this.naturalLog((this.totals.rows - n + 0.5) / (n + 0.5));
      if (idf <= 0) idf = MIN_IDF;
      this.idfs.set(documentFrequency, idf);
    }
    return idf;
  }

  /**
   * The best `limit` live rows in `rangesOf(segment)` holding any of the
   * phrases, best first: score = −bm25() (higher is better), ties by lower
   * chunk id, the order of `ORDER BY bm25(...) LIMIT k`. A row scores above 0
   * exactly when it holds a phrase (every IDF and column weight is positive).
   * Rows that cannot reach the best `limit` are left unscored where that
   * saves work (MaxScore, `rankPruned`); the rows returned and their scores
   * are the same either way.
   */
  rank(
    phrases: readonly SegmentedPhrase[],
    rangesOf: (segment: number) => readonly RowRange[],
    limit: number,
  ): ScoredRow[] {
    if (limit <= 0) return [];
    const idfs = phrases.map((phrase) => this.idf(this.documentFrequency(phrase)));
    const best = new TopK(limit);
    this.segments.forEach((segment, s) => {
      const present: number[] = [];
      phrases.forEach((phrase, p) => {
        const range = phrase[s];
        if (range !== undefined && range.end > range.first) present.push(p);
      });
      const ranges = rangesOf(s);
      const everyRow = ranges.length === 1 && ranges[0]?.[0] === 0 && ranges[0]?.[1] === segment.postings.rowCount;
      const search: SegmentSearch = {
        segment,
        scratch: scratchOf(segment.postings),
        phrases: present.map((p) => phrases[p]?.[s] ?? NO_TERMS),
        idfs: present.map((p) => idfs[p] ?? MIN_IDF),
        eligible: (row) => segment.deleted?.[row] !== 1 && (everyRow || inRanges(ranges, row)),
        averageLength: this.averageLength,
      };
      if (present.length === 0) return;
      const pruned = segment.postings.rowCount >= this.prunedFromRows && rankPruned(search, best, limit);
      if (!pruned) rankExhaustively(search, best);
    });
    return best.sorted();
  }
}

/**
 * MaxScore over one segment (docs/retrieval.md#lexical-leg): the cheap
 * phrases and those with the largest bounds of their contribution are added
 * in full, until the phrases left could not lift a row holding none of the
 * walked ones to the k-th best partial score so far (the threshold); the
 * phrases left are added for the rows that may still reach it alone, largest
 * bound first, dropping the rows that fall behind; the rows left are scored
 * as `rankExhaustively` scores every row, every phrase in the query's order.
 * False, having done nothing, when pruning would save less than it costs
 * (`firstWalked`).
 */
function rankPruned(search: SegmentSearch, best: TopK, limit: number): boolean {
  const { segment, scratch, phrases, idfs, eligible, averageLength } = search;
  const { postings } = segment;
  const { chunkIds } = segment.rows;
  const costs = phrases.map((phrase, p) => ({
    bound: (idfs[p] as number) * K1_PLUS_ONE * saturationBound(postings, chunkIds, phrase, averageLength, K1, B),
    postings: postings.postingCount(phrase),
  }));
  if (cannotReach(boundLeft(costs, []), best.threshold)) return true;
  const walked = firstWalked(costs);
  if (walked === undefined) return false;

  const { scores, scored, marks, candidates } = scratch;
  /** Whether phrase p is looked up for `count` rows rather than walked. */
  const byLookup = (p: number, count: number) => {
    const phrase = phrases[p] as TermRange;
    return (
      phrase.end - phrase.first === 1 &&
      count * LOOKUP_FACTOR < (costs[p]?.postings ?? 0) &&
      inChunkOrder(postings, chunkIds, phrase.first)
    );
  };
  /** Adds phrase p to the rows of `list` (ascending, marked) alone. */
  const addTo = (p: number, list: Uint32Array) => {
    const phrase = phrases[p] as TermRange;
    const idf = idfs[p] as number;
    if (byLookup(p, list.length)) addTermByLookup(postings, chunkIds, phrase.first, idf, averageLength, scratch, list);
    else addPhrase(postings, phrase, idf, averageLength, scratch, marks);
  };
  /** The k-th best partial score of the rows scored that may be returned. */
  const kthScored = () => {
    const values = new Float64Array(scratch.scoredCount);
    let n = 0;
    for (let k = 0; k < scratch.scoredCount; k += 1) {
      const row = scored[k] as number;
      if (eligible(row)) values[n++] = scores[row] as number;
    }
    return kthLargest(limit, values.subarray(0, n));
  };

  scratch.scoredCount = 0;
  for (const p of walked) addPhrase(postings, phrases[p] as TermRange, idfs[p] as number, averageLength, scratch);
  let threshold = Math.max(best.threshold, kthScored());
  // A phrase lifts the k-th partial score by its bound at most: until that could stop the walk, the
  // threshold is not worth a pass over the rows (unknown while fewer than k rows have a score).
  const ceilingOf = (known: number) => (known === Number.NEGATIVE_INFINITY ? Number.POSITIVE_INFINITY : known);
  let ceiling = ceilingOf(threshold);
  for (const p of byBound(costs, walked)) {
    if (cannotReach(boundLeft(costs, walked), threshold)) break;
    addPhrase(postings, phrases[p] as TermRange, idfs[p] as number, averageLength, scratch);
    walked.push(p);
    ceiling += costs[p]?.bound ?? Number.POSITIVE_INFINITY;
    if (!cannotReach(boundLeft(costs, walked), ceiling)) continue;
    threshold = Math.max(threshold, kthScored());
    ceiling = ceilingOf(threshold);
  }

  const rest = byBound(costs, walked);
  // The rows that may still reach the threshold, their partial scores kept; the others are cleared.
  let left = boundLeft(costs, walked);
  for (let k = 0; k < scratch.scoredCount; k += 1) {
    const row = scored[k] as number;
    if (cannotReach((scores[row] as number) + left, threshold) || !eligible(row)) {
      scores[row] = 0;
      continue;
    }
    marks[row >>> 5] = (marks[row >>> 5] as number) | (1 << (row & 31));
  }
  let list = ascending(candidates, marks);
  // The phrases left, largest bound first, for those rows alone: each one lowers what the rest can add,
  // and may raise the threshold, so fewer rows stay in the running for the next.
  // One pass a phrase drops the rows behind the threshold so far and finds the next one among the rest.
  const keep = (rows: Uint32Array) => {
    const partials = new Float64Array(rows.length);
    let kept = 0;
    for (const row of rows) {
      const partial = scores[row] as number;
      if (cannotReach(partial + left, threshold)) {
        scores[row] = 0;
        marks[row >>> 5] = (marks[row >>> 5] as number) & ~(1 << (row & 31));
      } else {
        partials[kept] = partial;
        rows[kept++] = row;
      }
    }
    threshold = Math.max(threshold, kthLargest(limit, partials.subarray(0, kept)));
    return rows.subarray(0, kept);
  };
  for (const p of rest) {
    addTo(p, list);
    walked.push(p);
    left = boundLeft(costs, walked);
    list = keep(list);
  }
  if (rest.length > 0) list = keep(list);
  // Their scores as FTS5 sums them: every phrase, in the query's order. Each row left holds a phrase,
  // so it is listed as scored again.
  for (const row of list) scores[row] = 0;
  scratch.scoredCount = 0;
  for (const p of phrases.keys()) addTo(p, list);
  for (const row of list) marks[row >>> 5] = 0;
  offerScored(search, best, false);
  return true;
}

/**
 * The rows marked, ascending, into `candidates`: a pass over a bit a row,
 * which costs less than sorting them.
 */
function ascending(candidates: Uint32Array, marks: Uint32Array): Uint32Array {
  let count = 0;
  for (let word = 0; word < marks.length; word += 1) {
    // The lowest bit set first, cleared after.
    for (let bits = marks[word] as number; bits !== 0; bits &= bits - 1) {
      candidates[count++] = word * 32 + 31 - Math.clz32(bits & -bits);
    }
  }
  return candidates.subarray(0, count);
}

/**
 * A term's contribution to the rows of `list` (ascending) alone, each found
 * in the term's postings, which are in chunk id order, from where the
 * previous one was (from the start again where the list's chunk ids fall:
 * rows are in chunk id order within each vault and namespace).
 */
function addTermByLookup(
  postings: WordPostings,
  chunkIds: Float64Array,
  term: number,
  idf: number,
  averageLength: number,
  scratch: Scratch,
  list: Uint32Array,
): void {
  const { offsets, rows, frequencies } = postings;
  const start = offsets[term] as number;
  const end = offsets[term + 1] as number;
  const keyAt = (i: number) => chunkIds[rows[i] as number] as number;
  let at = start;
  let previous = Number.NEGATIVE_INFINITY;
  for (const row of list) {
    const key = chunkIds[row] as number;
    if (key < previous) at = start;
    previous = key;
    at = firstAtLeast(keyAt, at, end, key);
    if (at < end && rows[at] === row) addScore(postings, scratch, row, frequencies[at] as number, idf, averageLength);
  }
}

/** One segment's part of a search: its phrases (those with postings there) and which rows may be returned. */
interface SegmentSearch {
  readonly segment: WordSegment;
  readonly scratch: Scratch;
  readonly phrases: readonly TermRange[];
  readonly idfs: readonly number[];
  readonly eligible: (row: number) => boolean;
  readonly averageLength: number;
}

const NO_TERMS: TermRange = { first: 0, end: 0 };
/**
 * A term is looked up for each row still in the running, rather than walked,
 * when it has this many times more postings than there are such rows: a
 * lookup costs a few steps of a binary search where a walk costs one step a
 * posting.
 */
const LOOKUP_FACTOR = 8;

/** Every posting of every phrase, in the query's order, then every row scored offered. */
function rankExhaustively(search: SegmentSearch, best: TopK): void {
  const { segment, scratch, phrases, idfs, averageLength } = search;
  scratch.scoredCount = 0;
  for (const [p, phrase] of phrases.entries())
    addPhrase(segment.postings, phrase, idfs[p] as number, averageLength, scratch);
  offerScored(search, best, true);
}

/**
 * Offers the rows scored to the best k and clears their scores. Only the rows
 * a posting scored are offered and cleared again: a search costs what its
 * terms' postings do, not the rows of the segment
 * (docs/retrieval.md#writes-at-scale).
 */
function offerScored(search: SegmentSearch, best: TopK, checkEligible: boolean): void {
  const { segment, scratch, eligible } = search;
  const { scores, scored } = scratch;
  const { chunkIds } = segment.rows;
  let threshold = best.threshold;
  for (let k = 0; k < scratch.scoredCount; k += 1) {
    const row = scored[k] as number;
    const score = scores[row] as number;
    scores[row] = 0;
    if (score < threshold || (checkEligible && !eligible(row))) continue;
    best.offer(row, chunkIds[row] ?? 0, score);
    threshold = best.threshold;
  }
}

/** Whether `row` is in one of `ranges` (ascending, disjoint). */
function inRanges(ranges: readonly RowRange[], row: number): boolean {
  let low = 0;
  let high = ranges.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const range = ranges[middle] as RowRange;
    if (row >= range[1]) low = middle + 1;
    else if (row < range[0]) high = middle;
    else return true;
  }
  return false;
}

/** The segment's scratch arrays. */
function scratchOf(postings: WordPostings): Scratch {
  let scratch = scratches.get(postings);
  if (scratch === undefined) {
    const rows = postings.rowCount;
    scratch = {
      scores: pageFloat64(rows),
      scored: pageUint32(rows),
      scoredCount: 0,
      frequencies: pageFloat64(rows),
      touched: pageUint32(rows),
      marks: pageUint32(Math.ceil(rows / 32)),
      candidates: pageUint32(rows),
    };
    scratches.set(postings, scratch);
  }
  return scratch;
}

/** k1·(1 − b + b·D/avgdl) of a row of length D: FTS5's operations in its order, so every score is FTS5's bit for bit. */
function lengthNorm(length: number, averageLength: number): number {
  return K1 * (1 - B + (B * length) / averageLength);
}

/**
 * A phrase's contribution to every row of the segment that holds it, or only
 * to the rows whose bit is set in `marks` (bit `row & 31` of word `row >>> 5`). A phrase of several terms (a prefix) has
 * the sum of its terms' frequencies in a row.
 */
function addPhrase(
  postings: WordPostings,
  phrase: TermRange,
  idf: number,
  averageLength: number,
  scratch: Scratch,
  marks?: Uint32Array,
): void {
  const { offsets, rows, frequencies: postingFrequencies } = postings;
  const start = offsets[phrase.first] ?? 0;
  const end = offsets[phrase.end] ?? 0;
  // Indices come from the postings (rows < rowCount): `as number` only drops noUncheckedIndexedAccess's undefined.
  if (phrase.end - phrase.first === 1) {
    if (marks === undefined) {
      addTerm(postings, phrase.first, idf, averageLength, scratch);
    } else {
      for (let i = start; i < end; i += 1) {
        const row = rows[i] as number;
        if (((marks[row >>> 5] as number) >>> (row & 31)) & 1)
          addScore(postings, scratch, row, postingFrequencies[i] as number, idf, averageLength);
      }
    }
    return;
  }
  const { frequencies, touched } = scratch;
  let count = 0;
  for (let i = start; i < end; i += 1) {
    const row = rows[i] as number;
    if (marks !== undefined && (((marks[row >>> 5] as number) >>> (row & 31)) & 1) === 0) continue;
    if (frequencies[row] === 0) touched[count++] = row;
    frequencies[row] = (frequencies[row] as number) + (postingFrequencies[i] as number);
  }
  for (let k = 0; k < count; k += 1) {
    const row = touched[k] as number;
    addScore(postings, scratch, row, frequencies[row] as number, idf, averageLength);
    frequencies[row] = 0;
  }
}

/**
 * One term's contribution to every row of the segment that holds it: the
 * loop most of a search's time goes to, kept free of anything else.
 */
function addTerm(postings: WordPostings, term: number, idf: number, averageLength: number, scratch: Scratch): void {
  const { offsets, rows, frequencies, lengths } = postings;
  const { scores, scored } = scratch;
  const start = offsets[term] ?? 0;
  const end = offsets[term + 1] ?? 0;
  for (let i = start; i < end; i += 1) {
    const row = rows[i] as number;
    const f = frequencies[i] as number;
    const norm = lengthNorm(lengths[row] as number, averageLength);
    const score = scores[row] as number;
    if (score === 0) scored[scratch.scoredCount++] = row;
    scores[row] = score + idf * ((f * K1_PLUS_ONE) / (f + norm));
  }
}

/** Adds idf·f·(k1 + 1)/(f + norm) to the row's score, FTS5's operations in its order (as `addTerm`). */
function addScore(
  postings: WordPostings,
  scratch: Scratch,
  row: number,
  f: number,
  idf: number,
  averageLength: number,
): void {
  const { scores, scored } = scratch;
  const norm = lengthNorm(postings.lengths[row] as number, averageLength);
  const score = scores[row] as number;
  if (score === 0) scored[scratch.scoredCount++] = row;
  scores[row] = score + idf * ((f * K1_PLUS_ONE) / (f + norm));
}
