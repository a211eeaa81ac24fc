import { pageFloat64, pageUint32 } from '../vectors/page-arrays.js';
import type { TopK } from '../vectors/top-k.js';
import type { TermRange, WordPostings } from './word-postings.js';
import type { WordSegment } from './word-segment.js';

/**
 * BM25 scores of one segment's rows, added posting by posting into per-row
 * arrays, FTS5's operations in its order (docs/retrieval.md#lexical-leg):
 * what the whole ranking and the pruned one both score with.
 */

/** FTS5's bm25() parameters (docs/retrieval.md#lexical-leg): fixed in FTS5. */
export const K1 = 1.2;
export const B = 0.75;
export const K1_PLUS_ONE = K1 + 1;

/**
 * Per-row arrays of one segment, reused by every search (searches run one at
 * a time). Nothing here depends on the state of the index: a commit changes
 * the average length, and a per-row array of length norms would have to be
 * recomputed over every row of every segment on the first search after it
 * (docs/retrieval.md#writes-at-scale), so each norm is computed where a
 * posting is scored.
 */
export interface Scratch {
  /** Each row's score so far; 0 for every row between two searches. */
  readonly scores: Float64Array;
  /** The rows scored by this search, the first `scoredCount`. */
  readonly scored: Uint32Array;
  scoredCount: number;
  readonly frequencies: Float64Array;
  readonly touched: Uint32Array;
}

const scratches = new WeakMap<WordPostings, Scratch>();

/** One segment's part of a search: its phrases (those with postings there) and which rows may be returned. */
export interface SegmentSearch {
  readonly segment: WordSegment;
  readonly scratch: Scratch;
  readonly phrases: readonly TermRange[];
  readonly idfs: readonly number[];
  readonly eligible: (row: number) => boolean;
  readonly averageLength: number;
}

/** The segment's scratch arrays. */
export function scratchOf(postings: WordPostings): Scratch {
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

/** Every posting of every phrase, in the query's order, then every row scored offered. */
export function rankExhaustively(search: SegmentSearch, best: TopK): void {
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
export function offerScored(search: SegmentSearch, best: TopK, checkEligible: boolean): void {
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

/** k1·(1 − b + b·D/avgdl) of a row of length D: FTS5's operations in its order, so every score is FTS5's bit for bit. */
function lengthNorm(length: number, averageLength: number): number {
  return K1 * (1 - B + (B * length) / averageLength);
}

/**
 * A phrase's contribution to every row of the segment that holds it, or only
 * to the rows whose bit is set in `marks` (bit `row & 31` of word `row >>> 5`). A phrase of several terms (a prefix) has
 * the sum of its terms' frequencies in a row.
 */
export function addPhrase(
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
export function addScore(
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
