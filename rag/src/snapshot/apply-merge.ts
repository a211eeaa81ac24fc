import { pageUint8, pageUint32 } from '../vectors/page-arrays.js';
import { Segment } from './segment.js';
import type { MergeBuilt } from './segment-jobs.js';
import type { SegmentSet, SegmentState } from './segment-set.js';

/**
 * The same state of the index with a merged segment in the place of its
 * sources (docs/retrieval.md#snapshots): `sources` are the sources as they
 * were when the merge began (the merged segment leaves out the rows deleted
 * then); rows deleted since are deleted in the merged segment too, and their
 * postings counted in its terms. Undefined when the set no longer holds every
 * source (a whole load replaced them): the merge is dropped.
 */
export function applyMerge(
  set: SegmentSet,
  sources: readonly SegmentState[],
  merged: MergeBuilt,
): SegmentSet | undefined {
  const indices = sources.map((source) => set.states.findIndex((s) => s.segment === source.segment));
  if (indices.some((i) => i < 0)) return undefined;
  const segment = new Segment(merged.parts);
  const deleted = pageUint8(segment.rowCount);
  let deletedCount = 0;
  let deletedPostings: Uint32Array | undefined;
  sources.forEach((source, k) => {
    const now = set.stateAt(indices[k] ?? -1);
    const rowMap = merged.mergedRowOf[k];
    if (now.deletedCount === source.deletedCount || now.deleted === undefined || rowMap === undefined) return;
    for (let row = 0; row < rowMap.length; row += 1) {
      if (now.deleted[row] === 1 && source.deleted?.[row] !== 1) {
        deleted[rowMap[row] ?? -1] = 1;
        deletedCount += 1;
      }
    }
    const termMap = merged.termMaps?.[k];
    if (termMap === undefined || now.deletedPostings === undefined) return;
    deletedPostings ??= pageUint32(segment.words?.terms.length ?? 0);
    const counts = deletedPostings;
    for (let t = 0; t < termMap.length; t += 1) {
      const since = (now.deletedPostings[t] ?? 0) - (source.deletedPostings?.[t] ?? 0);
      const to = termMap[t] ?? -1;
      if (since > 0) counts[to] = (counts[to] ?? 0) + since;
    }
  });
  return set.withMerged(indices, {
    segment,
    deleted: deletedCount > 0 ? deleted : undefined,
    deletedCount,
    deletedPostings,
  });
}
