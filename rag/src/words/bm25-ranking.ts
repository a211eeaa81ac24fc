import { pageFloat64, pageUint32 } from '../vectors/page-arrays.js';
import { type ScoredRow, TopK } from '../vectors/top-k.js';
import type { RowRange } from '../vectors/vector-scan.js';
import type { Fts5Totals } from './fts5-totals.js';
import type { TermRange, WordPostings } from './word-postings.js';
import type { WordSegment } from './word-segment.js';

/** FTS5's bm25() parameters (docs/retrieval.md#lexical-leg): fixed in FTS5, as is the IDF's floor. */
const K1 = 1.2;
const B = 0.75;
const K1_PLUS_ONE = K1 + 1;
const MIN_IDF = 1e-6;

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

  constructor(
    private readonly segments: readonly WordSegment[],
    private readonly totals: Fts5Totals,
    private readonly naturalLog: (x: number) => number,
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
   */
  rank(
    phrases: readonly SegmentedPhrase[],
    rangesOf: (segment: number) => readonly RowRange[],
    limit: number,
  ): ScoredRow[] {
    const idfs = phrases.map((phrase) => this.idf(this.documentFrequency(phrase)));
    const best = new TopK(limit);
    this.segments.forEach((segment, s) => {
      const scratch = scratchOf(segment.postings);
      const { scores, scored } = scratch;
      scratch.scoredCount = 0;
      phrases.forEach((phrase, p) => {
        const range = phrase[s];
        const idf = idfs[p] ?? MIN_IDF;
        if (range === undefined || range.end === range.first) return;
        if (range.end - range.first === 1) addTerm(segment.postings, range.first, idf, this.averageLength, scratch);
        else addPhrase(segment.postings, range, idf, this.averageLength, scratch);
      });
      // Only the rows a posting scored are offered and cleared again: a search costs what its terms'
      // postings do, not the rows of the segment (docs/retrieval.md#writes-at-scale).
      const ranges = rangesOf(s);
      const everyRow = ranges.length === 1 && ranges[0]?.[0] === 0 && ranges[0]?.[1] === segment.postings.rowCount;
      const { chunkIds } = segment.rows;
      let threshold = best.threshold;
      for (let k = 0; k < scratch.scoredCount; k += 1) {
        const row = scored[k] as number;
        const score = scores[row] as number;
        scores[row] = 0;
        if (score < threshold || segment.deleted?.[row] === 1 || !(everyRow || inRanges(ranges, row))) continue;
        best.offer(row, chunkIds[row] ?? 0, score);
        threshold = best.threshold;
      }
    });
    return best.sorted();
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
    };
    scratches.set(postings, scratch);
  }
  return scratch;
}

/** k1·(1 − b + b·D/avgdl) of a row of length D: FTS5's operations in its order, so every score is FTS5's bit for bit. */
function lengthNorm(length: number, averageLength: number): number {
  return K1 * (1 - B + (B * length) / averageLength);
}

/** One term's contribution to every row of the segment that holds it. */
function addTerm(postings: WordPostings, term: number, idf: number, averageLength: number, scratch: Scratch): void {
  const { offsets, rows, frequencies, lengths } = postings;
  const { scores, scored } = scratch;
  const start = offsets[term] ?? 0;
  const end = offsets[term + 1] ?? 0;
  // Indices come from the postings (rows < rowCount): `as number` only drops noUncheckedIndexedAccess's undefined.
  for (let i = start; i < end; i += 1) {
    const row = rows[i] as number;
    const f = frequencies[i] as number;
    const norm = lengthNorm(lengths[row] as number, averageLength);
    const score = scores[row] as number;
    if (score === 0) scored[scratch.scoredCount++] = row;
    scores[row] = score + idf * ((f * K1_PLUS_ONE) / (f + norm));
  }
}

/** A phrase of several terms (a prefix): its frequency in a row is the sum over its terms. */
function addPhrase(
  postings: WordPostings,
  phrase: TermRange,
  idf: number,
  averageLength: number,
  scratch: Scratch,
): void {
  const { offsets, rows, frequencies: postingFrequencies, lengths } = postings;
  const { scores, scored, frequencies, touched } = scratch;
  let count = 0;
  for (let i = offsets[phrase.first] ?? 0; i < (offsets[phrase.end] ?? 0); i += 1) {
    const row = rows[i] as number;
    if (frequencies[row] === 0) touched[count++] = row;
    frequencies[row] = (frequencies[row] as number) + (postingFrequencies[i] as number);
  }
  for (let k = 0; k < count; k += 1) {
    const row = touched[k] as number;
    const f = frequencies[row] as number;
    const norm = lengthNorm(lengths[row] as number, averageLength);
    const score = scores[row] as number;
    if (score === 0) scored[scratch.scoredCount++] = row;
    scores[row] = score + idf * ((f * K1_PLUS_ONE) / (f + norm));
    frequencies[row] = 0;
  }
}
