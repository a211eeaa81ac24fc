import { type ScoredRow, TopK } from '../vectors/top-k.js';
import type { RowRange } from '../vectors/vector-scan.js';
import type { TermRange, WordPostings } from './word-postings.js';

/** FTS5's bm25() parameters (docs/retrieval.md#lexical-leg): fixed in FTS5, as is the IDF's floor. */
const K1 = 1.2;
const B = 0.75;
const K1_PLUS_ONE = K1 + 1;
const MIN_IDF = 1e-6;

/**
 * FTS5's `bm25()` over an OR of phrases, computed from the postings in memory
 * the way FTS5 computes it, operation for operation, so that every score is
 * FTS5's to the last bit (docs/retrieval.md#lexical-leg): per phrase an IDF
 * of `ln((N − n + 0.5) / (n + 0.5))`, floored at 1e-6, and per row
 * `Σ idf · f·(k1 + 1) / (f + k1·(1 − b + b·D/avgdl))`, summed in the query's
 * phrase order, where f is the phrase's column-weighted frequency in the row
 * and D the row's length. The logarithm is SQLite's own (`naturalLog`): the
 * C library's differs from JavaScript's in the last bit for some inputs.
 */
export class Bm25Ranking {
  private readonly idfs = new Map<number, number>();
  private readonly lengthNorms: Float64Array;
  private scratch: { scores: Float64Array; frequencies: Float64Array; touched: Uint32Array } | undefined;

  constructor(
    private readonly postings: WordPostings,
    private readonly naturalLog: (x: number) => number,
  ) {
    const { lengths, rowCount, totals } = postings;
    const averageLength = totals.tokens / totals.rows;
    this.lengthNorms = new Float64Array(rowCount);
    for (let row = 0; row < rowCount; row += 1) {
      this.lengthNorms[row] = K1 * (1 - B + (B * (lengths[row] ?? 0)) / averageLength);
    }
  }

  /** The IDF FTS5 gives a phrase found in `documentFrequency` rows. */
  idf(documentFrequency: number): number {
    let idf = this.idfs.get(documentFrequency);
    if (idf === undefined) {
      const n = documentFrequency;
      idf = this.naturalLog((this.postings.totals.rows - n + 0.5) / (n + 0.5));
      if (idf <= 0) idf = MIN_IDF;
      this.idfs.set(documentFrequency, idf);
    }
    return idf;
  }

  /**
   * The best `limit` rows of `ranges` holding any of the phrases, best first:
   * score = −bm25() (higher is better), ties by lower chunk id, the order of
   * `ORDER BY bm25(...) LIMIT k`. A row scores above 0 exactly when it holds
   * a phrase (every IDF and column weight is positive).
   */
  rank(phrases: readonly TermRange[], ranges: readonly RowRange[], chunkIds: Float64Array, limit: number): ScoredRow[] {
    const scratch = this.scratchArrays();
    const { scores } = scratch;
    scores.fill(0);
    for (const phrase of phrases) {
      if (phrase.end - phrase.first === 1) this.addTerm(phrase.first, scores);
      else this.addPhrase(phrase, scratch);
    }
    const best = new TopK(limit);
    for (const [start, end] of ranges) {
      for (let row = start; row < end; row += 1) {
        const score = scores[row] as number;
        if (score > 0 && score >= best.threshold) best.offer(row, chunkIds[row] ?? 0, score);
      }
    }
    return best.sorted();
  }

  /** One term's contribution to every row that holds it. */
  private addTerm(term: number, scores: Float64Array): void {
    const { offsets, rows, frequencies } = this.postings;
    const start = offsets[term] ?? 0;
    const end = offsets[term + 1] ?? 0;
    const idf = this.idf(end - start);
    const norms = this.lengthNorms;
    // Indices come from the postings (rows < rowCount): `as number` only drops noUncheckedIndexedAccess's undefined.
    for (let i = start; i < end; i += 1) {
      const row = rows[i] as number;
      const f = frequencies[i] as number;
      scores[row] = (scores[row] as number) + idf * ((f * K1_PLUS_ONE) / (f + (norms[row] as number)));
    }
  }

  /** A phrase of several terms (a prefix): its frequency in a row is the sum over its terms. */
  private addPhrase(phrase: TermRange, scratch: NonNullable<Bm25Ranking['scratch']>): void {
    const { offsets, rows, frequencies: postingFrequencies } = this.postings;
    const { scores, frequencies, touched } = scratch;
    let count = 0;
    for (let i = offsets[phrase.first] ?? 0; i < (offsets[phrase.end] ?? 0); i += 1) {
      const row = rows[i] as number;
      if (frequencies[row] === 0) touched[count++] = row;
      frequencies[row] = (frequencies[row] as number) + (postingFrequencies[i] as number);
    }
    const idf = this.idf(count);
    const norms = this.lengthNorms;
    for (let k = 0; k < count; k += 1) {
      const row = touched[k] as number;
      const f = frequencies[row] as number;
      scores[row] = (scores[row] as number) + idf * ((f * K1_PLUS_ONE) / (f + (norms[row] as number)));
      frequencies[row] = 0;
    }
  }

  private scratchArrays(): NonNullable<Bm25Ranking['scratch']> {
    const rows = this.postings.rowCount;
    this.scratch ??= {
      scores: new Float64Array(rows),
      frequencies: new Float64Array(rows),
      touched: new Uint32Array(rows),
    };
    return this.scratch;
  }
}
