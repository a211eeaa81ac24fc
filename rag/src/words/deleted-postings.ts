import { pageUint32 } from '../vectors/page-arrays.js';
import type { RowTokens } from './token-postings.js';
import type { WordPostings } from './word-postings.js';

/**
 * Per term, its postings in rows marked deleted (1), counted by walking every
 * posting: for a segment whose deleted rows are known only as a mark (the
 * catch-up after a segment was built from an older state of the index).
 * A term's document frequency is its postings minus this.
 */
export function countDeletedPostings(postings: WordPostings, deleted: Uint8Array): Uint32Array {
  const counts = pageUint32(postings.terms.length);
  for (let t = 0; t < postings.terms.length; t += 1) {
    let count = 0;
    for (let i = postings.offsets[t] as number; i < (postings.offsets[t + 1] as number); i += 1) {
      if (deleted[postings.rows[i] as number] === 1) count += 1;
    }
    counts[t] = count;
  }
  return counts;
}

/** A row being deleted, and FTS5's tokens of the text it was given. */
export interface RemovedRow {
  readonly row: number;
  readonly tokens: RowTokens;
}

/**
 * The counts of `countDeletedPostings` once `removed` rows are deleted as
 * well (a new array; `counts` is left as it is), one step per token of the
 * removed rows: a change costs what it changes. Undefined when a row's
 * tokens are not what the segment holds for it (a term it does not have, or
 * another length), which means the tokens were not made the way the word
 * table's were.
 */
export function withRemovedRows(
  postings: WordPostings,
  counts: Uint32Array | undefined,
  removed: readonly RemovedRow[],
): Uint32Array | undefined {
  const next = pageUint32(postings.terms.length);
  if (counts) next.set(counts);
  for (const { row, tokens } of removed) {
    const all = tokens.flat();
    if (all.length !== postings.lengths[row]) return undefined;
    for (const token of new Set(all)) {
      const { first, end } = postings.range(token, false);
      if (end === first) return undefined;
      next[first] = (next[first] as number) + 1;
    }
  }
  return next;
}
