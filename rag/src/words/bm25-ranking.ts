import { type ScoredRow, TopK } from '../vectors/top-k.js';
import type { RowRange } from '../vectors/vector-scan.js';
import { rankExhaustively, type SegmentSearch, scratchOf } from './bm25-scores.js';
import type { Fts5Totals } from './fts5-totals.js';
import { rankPruned } from './pruned-ranking.js';
import type { TermRange } from './word-postings.js';
import type { WordSegment } from './word-segment.js';

/** FTS5's floor of a phrase's IDF (docs/retrieval.md#lexical-leg). */
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
      // A segment holding none of the phrases is not scored (nor given scratch arrays).
      if (present.length === 0) return;
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
      const pruned = segment.postings.rowCount >= this.prunedFromRows && rankPruned(search, best, limit);
      if (!pruned) rankExhaustively(search, best);
    });
    return best.sorted();
  }
}

const NO_TERMS: TermRange = { first: 0, end: 0 };

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
