/**
 * When the in-memory index merges segments (docs/retrieval.md#snapshots): a
 * logarithmic policy in the manner of Lucene's and Tantivy's. Segments are
 * sorted into levels by their live rows, each level MERGE_FACTOR times the
 * one below; MERGE_FACTOR segments on one level become one segment of the
 * next. So a commit's small segment is merged about once per level, a state
 * holds at most MERGE_FACTOR − 1 segments per level, and the large segment a
 * full load made is merged only when enough has been added to match it.
 */
export const MERGE_FACTOR = 8;
/** Ours: segments below this many live rows are one level (merging them costs next to nothing). */
export const FLOOR_ROWS = 256;
/**
 * Deleted rows stay in memory until their segment is merged: once they are
 * more than this share of all rows, the segment holding most of them is
 * rewritten, so the segments stay within about 11% of the live rows (goal:
 * within 20% of the memory of the same rows loaded afresh).
 */
export const DELETED_SHARE_LIMIT = 0.1;

export interface SegmentSize {
  readonly rows: number;
  readonly deleted: number;
}

/** The segments to merge into one next (indices, ascending), or undefined when none need merging. */
export function chooseMerge(sizes: readonly SegmentSize[]): number[] | undefined {
  const rows = sizes.reduce((sum, size) => sum + size.rows, 0);
  const deleted = sizes.reduce((sum, size) => sum + size.deleted, 0);
  if (deleted > DELETED_SHARE_LIMIT * rows) {
    const most = sizes.reduce((best, size, i) => (size.deleted > (sizes[best]?.deleted ?? 0) ? i : best), 0);
    return [most];
  }
  const byLevel = new Map<number, number[]>();
  sizes.forEach((size, i) => {
    const level = levelOf(size.rows - size.deleted);
    byLevel.set(level, [...(byLevel.get(level) ?? []), i]);
  });
  const full = [...byLevel.entries()].filter(([, members]) => members.length >= MERGE_FACTOR);
  const lowest = full.sort(([a], [b]) => a - b)[0];
  return lowest?.[1];
}

/** 0 below FLOOR_ROWS, then one more per factor of MERGE_FACTOR. */
export function levelOf(liveRows: number): number {
  let level = 0;
  for (let bound = FLOOR_ROWS; liveRows >= bound; bound *= MERGE_FACTOR) level += 1;
  return level;
}
