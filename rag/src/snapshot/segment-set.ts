import { pageCopy, pageUint8 } from '../vectors/page-arrays.js';
import type { ScanPart } from '../vectors/scan-job.js';
import type { ScanThread } from '../vectors/scan-thread-client.js';
import { SignCodeSearch } from '../vectors/sign-codes.js';
import { type ScoredRow, TopK } from '../vectors/top-k.js';
import type { RowRange } from '../vectors/vector-scan.js';
import type { WordSegment } from '../words/word-segment.js';
import type { Segment } from './segment.js';

/** A segment as one state of the index sees it: which of its rows that state has deleted. */
export interface SegmentState {
  readonly segment: Segment;
  /** 1 for a deleted row; undefined when none is. */
  readonly deleted: Uint8Array | undefined;
  readonly deletedCount: number;
  /** Per term of the segment's postings, its postings in deleted rows (none when no row is, or no postings). */
  readonly deletedPostings: Uint32Array | undefined;
}

/** A dense search begun (`SegmentSet.beginNearest`): `rows()` gives its hits. */
export interface BegunNearest {
  rows(): ScoredRow[];
}

/** A row of one segment of a set. */
export interface RowLocation {
  readonly segment: number;
  readonly row: number;
}

/** Deletions in one segment: its rows, and the new per-term counts of postings in deleted rows. */
export interface SegmentDeletions {
  readonly rows: readonly number[];
  readonly deletedPostings: Uint32Array | undefined;
}

/**
 * The in-memory index of one state (docs/retrieval.md#snapshots): its
 * segments, and the rows of each that are deleted (tombstones). Immutable:
 * a change makes a new set that shares every segment and every tombstone
 * array it does not change, so a state being searched is never altered by
 * the next one being built.
 */
export class SegmentSet {
  constructor(readonly states: readonly SegmentState[]) {}

  static of(segments: readonly Segment[]): SegmentSet {
    return new SegmentSet(
      segments.map((segment) => ({ segment, deleted: undefined, deletedCount: 0, deletedPostings: undefined })),
    );
  }

  get liveRows(): number {
    return this.states.reduce((sum, state) => sum + state.segment.rowCount - state.deletedCount, 0);
  }

  get deletedRows(): number {
    return this.states.reduce((sum, state) => sum + state.deletedCount, 0);
  }

  /** Whether every segment has word postings: then the word tier is ranked in memory. */
  get hasWords(): boolean {
    return this.states.every((state) => state.segment.words !== undefined);
  }

  /** The word index of each segment as this state sees it (undefined: a segment has no postings). */
  wordSegments(): WordSegment[] | undefined {
    const segments: WordSegment[] = [];
    for (const { segment, deleted, deletedPostings } of this.states) {
      if (segment.words === undefined) return undefined;
      segments.push({ postings: segment.words, rows: segment.matrix, deleted, deletedPostings });
    }
    return segments;
  }

  /**
   * Live chunks per (vault, namespace) that has any, in vault then namespace
   * order: a group's rows are its partition in every segment, less the
   * deleted ones.
   */
  chunksByGroup(): { vault: string; namespace: string; chunks: number }[] {
    const groups = new Map<string, { vault: string; namespace: string; chunks: number }>();
    for (const { segment, deleted } of this.states) {
      for (const p of segment.matrix.partitions) {
        let live = p.end - p.start;
        if (deleted) for (let row = p.start; row < p.end; row += 1) live -= deleted[row] ?? 0;
        const key = JSON.stringify([p.vault, p.namespace]);
        const group = groups.get(key) ?? { vault: p.vault, namespace: p.namespace, chunks: 0 };
        group.chunks += live;
        groups.set(key, group);
      }
    }
    return [...groups.values()]
      .filter((group) => group.chunks > 0)
      .sort((a, b) => compare(a.vault, b.vault) || compare(a.namespace, b.namespace));
  }

  /** The vaults of every segment's rows (deleted or not), each once. */
  vaultNames(): string[] {
    const names = new Set<string>();
    for (const { segment } of this.states) for (const p of segment.matrix.partitions) names.add(p.vault);
    return [...names];
  }

  /** Where a chunk lives in this state, or undefined when it is not there (never added, or deleted). */
  locate(chunkId: number): RowLocation | undefined {
    for (const [segment, state] of this.states.entries()) {
      const row = state.segment.rowOf(chunkId);
      if (row >= 0 && state.deleted?.[row] !== 1) return { segment, row };
    }
    return undefined;
  }

  /** The vector of a live chunk (a view into its segment's matrix). */
  vectorOf(chunkId: number): Float32Array | undefined {
    const at = this.locate(chunkId);
    if (at === undefined) return undefined;
    const { data, dimension } = this.stateAt(at.segment).segment.matrix;
    return data.subarray(at.row * dimension, (at.row + 1) * dimension);
  }

  /**
   * The `k` live rows of every segment's `rangesOf(segment)` nearest the
   * query, best first, ties by chunk id: each segment's exact top k, then the
   * best k of those, which is the exact top k over all of them.
   */
  nearest(query: Float32Array, k: number, rangesOf: (segment: Segment) => readonly RowRange[]): ScoredRow[] {
    return this.beginNearest(query, k, rangesOf, undefined).rows();
  }

  /**
   * `nearest`, begun: the approximate scans of large segments are posted to
   * the scan thread, when one is given and ready, to run while the caller
   * does other work (docs/retrieval.md#dense-leg); `rows()` scans the other
   * segments here, then takes the thread's hits, or scans those segments too
   * when the thread had not begun them. The hits are the same either way.
   */
  beginNearest(
    query: Float32Array,
    k: number,
    rangesOf: (segment: Segment) => readonly RowRange[],
    thread: ScanThread | undefined,
  ): BegunNearest {
    const scans = this.states.map((state) => ({ state, ranges: rangesOf(state.segment) }));
    const approximate: { state: SegmentState; ranges: readonly RowRange[]; search: SignCodeSearch }[] = [];
    for (const scan of thread ? scans : []) {
      const search = signCodeSearchOf(scan.state);
      if (search) approximate.push({ ...scan, search });
    }
    const parts = approximate.map(({ state, ranges, search }): ScanPart => {
      const { data, dimension, count, chunkIds } = search.matrix;
      return { data, dimension, count, chunkIds, codes: search.codes, ranges, deleted: state.deleted };
    });
    const posted = thread?.post(parts, query, k);
    const onThread = new Set(posted ? approximate.map(({ state }) => state) : []);
    return {
      rows: () => {
        const best = new TopK(k);
        const offer = (hits: readonly ScoredRow[]) => {
          for (const hit of hits) best.offer(hit.row, hit.chunkId, hit.score);
        };
        for (const { state, ranges } of scans) {
          if (!onThread.has(state)) offer(state.segment.vectors.topK(query, k, ranges, state.deleted));
        }
        if (onThread.size === 0) return best.sorted();
        const taken = posted?.take();
        approximate.forEach(({ state, ranges }, i) => {
          offer(taken?.[i] ?? state.segment.vectors.topK(query, k, ranges, state.deleted));
        });
        return best.sorted();
      },
    };
  }

  /** The code memories of the segments searched through sign codes (what the scan thread may be sent). */
  codeMemories(): Set<WebAssembly.Memory> {
    const memories = new Set<WebAssembly.Memory>();
    for (const state of this.states) {
      const search = signCodeSearchOf(state);
      if (search) memories.add(search.codes.memory);
    }
    return memories;
  }

  /** This set with rows deleted: per segment index, the rows and the new counts (the segments' own arrays are copied, never changed). */
  withDeletions(deletions: ReadonlyMap<number, SegmentDeletions>): SegmentSet {
    return new SegmentSet(
      this.states.map((state, s) => {
        const change = deletions.get(s);
        if (change === undefined || change.rows.length === 0) return state;
        const deleted = state.deleted ? pageCopy(state.deleted) : pageUint8(state.segment.rowCount);
        let deletedCount = state.deletedCount;
        for (const row of change.rows) {
          if (deleted[row] === 1) throw new RangeError(`row ${row} of segment ${s} is deleted twice`);
          deleted[row] = 1;
          deletedCount += 1;
        }
        return { segment: state.segment, deleted, deletedCount, deletedPostings: change.deletedPostings };
      }),
    );
  }

  /** This set with one more segment (a commit's new chunks). */
  withSegment(segment: Segment): SegmentSet {
    if (segment.rowCount === 0) return this;
    return new SegmentSet([
      ...this.states,
      { segment, deleted: undefined, deletedCount: 0, deletedPostings: undefined },
    ]);
  }

  /** This set with the segments at `replaced` swapped for `merged` (in the place of the first of them). */
  withMerged(replaced: readonly number[], merged: SegmentState): SegmentSet {
    const first = Math.min(...replaced);
    const states: SegmentState[] = [];
    this.states.forEach((state, s) => {
      if (s === first && merged.segment.rowCount > 0) states.push(merged);
      else if (!replaced.includes(s)) states.push(state);
    });
    return new SegmentSet(states);
  }

  stateAt(segment: number): SegmentState {
    const state = this.states[segment];
    if (state === undefined) throw new RangeError(`no segment ${segment}`);
    return state;
  }
}

/** The segment's search when it goes through sign codes (what the scan thread can run). */
function signCodeSearchOf(state: SegmentState): SignCodeSearch | undefined {
  const search = state.segment.vectors;
  return search instanceof SignCodeSearch ? search : undefined;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
