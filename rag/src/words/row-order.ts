import { pageUint32 } from '../vectors/page-arrays.js';
import type { WordPostingsParts } from './word-postings.js';

/**
 * Puts every term's postings in ascending row order, in place, each row
 * keeping its frequency (docs/retrieval.md#lexical-leg). FTS5 lists a term's
 * postings in chunk id order, which interleaves the row ranges of vaults and
 * namespaces, and a merge appends its sources' postings one after the other;
 * in row order a search walks the per-row arrays front to back and finds a
 * row in a term's postings by the row itself. A term lists a row once.
 */
export function sortPostingsByRow(
  parts: Pick<WordPostingsParts, 'offsets' | 'rows' | 'frequencies' | 'lengths'>,
): void {
  const { offsets, rows, frequencies } = parts;
  // Each row's frequency while its term's rows are sorted: made at the first term out of order.
  let frequencyOf: Uint32Array | undefined;
  for (let term = 0; term + 1 < offsets.length; term += 1) {
    const start = offsets[term] as number;
    const end = offsets[term + 1] as number;
    if (isAscending(rows, start, end)) continue;
    frequencyOf ??= pageUint32(parts.lengths.length);
    for (let i = start; i < end; i += 1) frequencyOf[rows[i] as number] = frequencies[i] as number;
    rows.subarray(start, end).sort();
    for (let i = start; i < end; i += 1) frequencies[i] = frequencyOf[rows[i] as number] as number;
  }
}

function isAscending(rows: Uint32Array, start: number, end: number): boolean {
  for (let i = start + 1; i < end; i += 1) if ((rows[i] as number) <= (rows[i - 1] as number)) return false;
  return true;
}
