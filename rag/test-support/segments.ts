import assert from 'node:assert/strict';
import type { ModelSpec } from '../src/config/models.js';
import { applyMerge } from '../src/snapshot/apply-merge.js';
import { IndexSnapshot } from '../src/snapshot/index-snapshot.js';
import { type MergeBuilt, runSegmentJob, type VectorBuild } from '../src/snapshot/segment-jobs.js';
import type { SegmentState } from '../src/snapshot/segment-set.js';
import { DEFAULT_VECTOR_BUILD, type SegmentJobs } from '../src/snapshot/segment-worker-client.js';
import type { ScanThread } from '../src/vectors/scan-thread-client.js';
import { Fts5Mirror } from '../src/words/fts5-mirror.js';

/** The next snapshot of the index, following `previous` (which is closed). */
export async function follow(
  file: string,
  previous: IndexSnapshot,
  options: { readonly model: ModelSpec; readonly worker: SegmentJobs; readonly scanThread?: ScanThread },
): Promise<IndexSnapshot> {
  const next = await IndexSnapshot.open(file, { ...options, previous });
  previous.close();
  return next;
}

/** A merge of some segments of a snapshot, computed in this thread, to be installed later. */
export interface PendingMerge {
  readonly sources: readonly SegmentState[];
  readonly merged: MergeBuilt;
}

const mirror = new Fts5Mirror();

/** Merges the segments at `indices` as the merging worker would, without installing the result. */
export function mergeOf(
  snapshot: IndexSnapshot,
  indices: readonly number[],
  vectors: VectorBuild = DEFAULT_VECTOR_BUILD,
): PendingMerge {
  const sources = indices.map((i) => snapshot.segments.stateAt(i));
  const merged = runSegmentJob(
    { kind: 'merge', sources: sources.map((s) => ({ parts: s.segment.parts, deleted: s.deleted })) },
    () => mirror,
    vectors,
  );
  if (merged.kind !== 'merge') throw new Error(`a merge job answered ${merged.kind}`);
  return { sources, merged };
}

/** Installs a merge in the snapshot (which may have moved on since the merge began). */
export function install(snapshot: IndexSnapshot, merge: PendingMerge): void {
  const merged = applyMerge(snapshot.segments, merge.sources, merge.merged);
  assert.ok(merged, 'the merge sources are still there');
  snapshot.replaceSegments(merged);
}
