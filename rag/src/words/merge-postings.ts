import { pageUint16, pageUint32 } from '../vectors/page-arrays.js';
import { sortPostingsByRow } from './row-order.js';
import { compareTerms, WordPostings } from './word-postings.js';

/** Where a merged row comes from: its source and its row there (a vectors/row-merge.ts plan). */
export interface MergedRows {
  readonly sourceOf: Uint32Array;
  readonly rowOf: Uint32Array;
  /** Per source: each row's merged row, -1 for a row left out (deleted). */
  readonly mergedRowOf: readonly Int32Array[];
}

export interface PostingsMerge {
  readonly postings: WordPostings;
  /** Per source: each of its terms' index among the merged terms. */
  readonly termMaps: readonly Uint32Array[];
}

/**
 * The postings of a merged segment (docs/retrieval.md#snapshots): the union
 * of the sources' terms in FTS5's order, each term's postings in the rows
 * that are kept, renumbered, in row order; each row keeps its length. No
 * term is looked at twice and no row is tokenized again.
 */
export function mergePostings(sources: readonly WordPostings[], plan: MergedRows): PostingsMerge {
  const { terms, termMaps } = mergeTerms(sources);
  const counts = pageUint32(terms.length);
  sources.forEach((source, s) => {
    const map = plan.mergedRowOf[s];
    const termMap = termMaps[s];
    if (!map || !termMap) return;
    for (let t = 0; t < source.terms.length; t += 1) {
      let kept = 0;
      for (let i = source.offsets[t] as number; i < (source.offsets[t + 1] as number); i += 1) {
        if ((map[source.rows[i] as number] as number) >= 0) kept += 1;
      }
      counts[termMap[t] as number] = (counts[termMap[t] as number] as number) + kept;
    }
  });
  const offsets = pageUint32(terms.length + 1);
  for (let t = 0; t < terms.length; t += 1) offsets[t + 1] = (offsets[t] as number) + (counts[t] as number);
  const total = offsets[terms.length] ?? 0;
  const rows = pageUint32(total);
  const frequencies = sources.some((source) => source.frequencies instanceof Uint32Array)
    ? pageUint32(total)
    : pageUint16(total);
  const cursor = offsets.slice(0, terms.length);
  sources.forEach((source, s) => {
    const map = plan.mergedRowOf[s];
    const termMap = termMaps[s];
    if (!map || !termMap) return;
    for (let t = 0; t < source.terms.length; t += 1) {
      const merged = termMap[t] as number;
      for (let i = source.offsets[t] as number; i < (source.offsets[t + 1] as number); i += 1) {
        const row = map[source.rows[i] as number] as number;
        if (row < 0) continue;
        const at = cursor[merged] as number;
        rows[at] = row;
        frequencies[at] = source.frequencies[i] as number;
        cursor[merged] = at + 1;
      }
    }
  });
  const lengths = pageUint32(plan.sourceOf.length);
  for (let m = 0; m < lengths.length; m += 1) {
    lengths[m] = sources[plan.sourceOf[m] as number]?.lengths[plan.rowOf[m] as number] ?? 0;
  }
  sortPostingsByRow({ offsets, rows, frequencies, lengths });
  return { postings: new WordPostings({ terms, offsets, rows, frequencies, lengths }), termMaps };
}

/** The sorted union of the sources' sorted term lists, and where each source term went. */
function mergeTerms(sources: readonly WordPostings[]): { terms: string[]; termMaps: Uint32Array[] } {
  const terms: string[] = [];
  const termMaps = sources.map((source) => pageUint32(source.terms.length));
  const next = sources.map(() => 0);
  for (;;) {
    let smallest: string | undefined;
    sources.forEach((source, s) => {
      const term = source.terms[next[s] ?? 0];
      if (term !== undefined && (smallest === undefined || compareTerms(term, smallest) < 0)) smallest = term;
    });
    if (smallest === undefined) return { terms, termMaps };
    sources.forEach((source, s) => {
      const at = next[s] ?? 0;
      if (source.terms[at] !== smallest) return;
      const map = termMaps[s];
      if (map) map[at] = terms.length;
      next[s] = at + 1;
    });
    terms.push(smallest);
  }
}
