import { pageUint32 } from '../vectors/page-arrays.js';
import type { TopK } from '../vectors/top-k.js';
import {
  addPhrase,
  addScore,
  B,
  K1,
  K1_PLUS_ONE,
  offerScored,
  type Scratch,
  type SegmentSearch,
} from './bm25-scores.js';
import { boundLeft, byBound, cannotReach, firstWalked, KthLargest } from './max-score.js';
import { firstAtLeast } from './posting-lookup.js';
import { saturationBound } from './term-bounds.js';
import type { TermRange, WordPostings } from './word-postings.js';

/**
 * A term is looked up for each row still in the running, rather than walked,
 * when it has this many times more postings than there are such rows: a
 * lookup costs a few steps of a binary search where a walk costs one step a
 * posting.
 */
const LOOKUP_FACTOR = 8;

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
export function rankPruned(search: SegmentSearch, best: TopK, limit: number): boolean {
  const { segment, scratch, phrases, idfs, eligible, averageLength } = search;
  const { postings } = segment;
  const costs = phrases.map((phrase, p) => ({
    bound: (idfs[p] as number) * K1_PLUS_ONE * saturationBound(postings, phrase, averageLength, K1, B),
    postings: postings.postingCount(phrase),
  }));
  if (cannotReach(boundLeft(costs, []), best.threshold)) return true;
  const walked = firstWalked(costs);
  if (walked === undefined) return false;

  const { scores, scored } = scratch;
  const { marks, candidates } = runningOf(postings);
  /** Whether phrase p is looked up for `count` rows rather than walked. */
  const byLookup = (p: number, count: number) => {
    const phrase = phrases[p] as TermRange;
    return phrase.end - phrase.first === 1 && count * LOOKUP_FACTOR < (costs[p]?.postings ?? 0);
  };
  /** Adds phrase p to the rows of `list` (ascending, marked) alone. */
  const addTo = (p: number, list: Uint32Array) => {
    const phrase = phrases[p] as TermRange;
    const idf = idfs[p] as number;
    if (byLookup(p, list.length)) addTermByLookup(postings, phrase.first, idf, averageLength, scratch, list);
    else addPhrase(postings, phrase, idf, averageLength, scratch, marks);
  };
  /**
   * The k-th best partial score of the rows scored that may be returned, read
   * in one pass without a copy: a row's eligibility is asked only when its
   * score would count.
   */
  const kthScored = () => {
    const kth = new KthLargest(limit);
    for (let k = 0; k < scratch.scoredCount; k += 1) {
      const row = scored[k] as number;
      const score = scores[row] as number;
      if (kth.admits(score) && eligible(row)) kth.offer(score);
    }
    return kth.value;
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
    const kth = new KthLargest(limit);
    let kept = 0;
    for (const row of rows) {
      const partial = scores[row] as number;
      if (cannotReach(partial + left, threshold)) {
        scores[row] = 0;
        marks[row >>> 5] = (marks[row >>> 5] as number) & ~(1 << (row & 31));
      } else {
        if (kth.admits(partial)) kth.offer(partial);
        rows[kept++] = row;
      }
    }
    threshold = Math.max(threshold, kth.value);
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
 * A segment's arrays for the rows still in the running, made at its first
 * pruned search (a segment never pruned has none): a bit a row, set while a
 * pruned search scores them and 0 between searches, and those rows listed
 * ascending (`ascending`).
 */
interface Running {
  readonly marks: Uint32Array;
  readonly candidates: Uint32Array;
}

const running = new WeakMap<WordPostings, Running>();

function runningOf(postings: WordPostings): Running {
  let arrays = running.get(postings);
  if (arrays === undefined) {
    arrays = { marks: pageUint32(Math.ceil(postings.rowCount / 32)), candidates: pageUint32(postings.rowCount) };
    running.set(postings, arrays);
  }
  return arrays;
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
 * in the term's postings (in row order too) from where the previous one was.
 */
function addTermByLookup(
  postings: WordPostings,
  term: number,
  idf: number,
  averageLength: number,
  scratch: Scratch,
  list: Uint32Array,
): void {
  const { offsets, rows, frequencies } = postings;
  const end = offsets[term + 1] as number;
  const rowAt = (i: number) => rows[i] as number;
  let at = offsets[term] as number;
  for (const row of list) {
    at = firstAtLeast(rowAt, at, end, row);
    if (at === end) return;
    if (rows[at] === row) addScore(postings, scratch, row, frequencies[at] as number, idf, averageLength);
  }
}
