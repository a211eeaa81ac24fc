import type { Steps } from '@notegate/kit';
import type { ChunkChange } from '../store/change-log.js';
import type { RowLocation } from './segment-set.js';

/** What turns one state of the in-memory index into a later one (docs/retrieval.md#snapshots). */
export interface DeltaPlan {
  /** Chunks the earlier state holds that the later one does not (or holds anew), and where they are. */
  readonly removed: readonly { readonly chunkId: number; readonly at: RowLocation }[];
  /** Chunks the later state holds that the earlier one does not, ascending. */
  readonly added: readonly number[];
  /** Chunks added and removed again in between: neither state holds them. */
  readonly transient: number;
}

/** Changes planned in one step of `planDelta`. */
const CHANGES_PER_STEP = 256;

export type DeltaPlanResult =
  | { readonly ok: true; readonly plan: DeltaPlan }
  | { readonly ok: false; readonly reason: string };

/**
 * The delta between the state `locate` answers for and the state after
 * `changes` (the change log's entries in between, in order). A chunk id is
 * added and removed in turn, and only a chunk the earlier state holds can
 * be removed first; a log that says otherwise does not describe the earlier
 * state (a reader must then load the index whole). An id reused after its
 * chunk was removed is a removal and an addition. As steps, CHANGES_PER_STEP
 * changes each: a server plans a large commit's thousands of changes between
 * searches (docs/retrieval.md#index-runs).
 */
export function* planDelta(
  changes: readonly ChunkChange[],
  locate: (chunkId: number) => RowLocation | undefined,
): Steps<DeltaPlanResult> {
  const lastAdded = new Map<number, boolean>();
  const removed: { chunkId: number; at: RowLocation }[] = [];
  for (const [i, change] of changes.entries()) {
    if (i > 0 && i % CHANGES_PER_STEP === 0) yield;
    const previous = lastAdded.get(change.chunkId);
    let live = previous;
    if (live === undefined) {
      const at = locate(change.chunkId);
      live = at !== undefined;
      if (at !== undefined) removed.push({ chunkId: change.chunkId, at });
    }
    if (change.added === live) {
      return {
        ok: false,
        reason: `the change log ${change.added ? 'adds' : 'removes'} chunk ${change.chunkId} ${live ? 'already there' : 'not there'}`,
      };
    }
    lastAdded.set(change.chunkId, change.added);
  }
  const added = [...lastAdded].filter(([, isAdded]) => isAdded).map(([chunkId]) => chunkId);
  const additions = changes.filter((change) => change.added).length;
  return { ok: true, plan: { removed, added: added.sort((a, b) => a - b), transient: additions - added.length } };
}
