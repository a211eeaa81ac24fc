import { candidatesFor, SCAN_THREAD_LANE, SignCodeSearch, type SignCodes } from './sign-codes.js';
import type { ScoredRow } from './top-k.js';
import type { RowRange } from './vector-scan.js';

/**
 * A dense scan handed to the scan thread (docs/retrieval.md#dense-leg): the
 * approximate scans of a search's large segments, run there while the
 * serving thread ranks the lexical leg. Every array but the query is in
 * shared memory, so posting a job copies nothing else; the job's control
 * word and results are its own, so a job the serving thread gave up on can
 * never write into another's.
 */
export interface ScanJob {
  /** One word: `JOB_STATE`; the thread claims the job, the serving thread may take it back before. */
  readonly control: Int32Array;
  /** Per part, its hit count then (row, chunk id, score) per hit, room for k (`jobBuffers`). */
  readonly results: Float64Array;
  readonly query: Float32Array;
  readonly k: number;
  readonly parts: readonly ScanPart[];
}

/** One segment's part of a scan: its matrix's arrays, its sign codes, the rows the filter passes and its tombstones. */
export interface ScanPart {
  readonly data: Float32Array;
  readonly dimension: number;
  readonly count: number;
  readonly chunkIds: Float64Array;
  readonly codes: SignCodes;
  readonly ranges: readonly RowRange[];
  readonly deleted: Uint8Array | undefined;
}

/** The states of a job's control word. */
export const JOB_STATE = { posted: 0, running: 1, done: 2, failed: 3, takenBack: 4 } as const;

/** A job's own shared control word and results (room for k hits per part). */
export function jobBuffers(parts: number, k: number): Pick<ScanJob, 'control' | 'results'> {
  return {
    control: new Int32Array(new SharedArrayBuffer(4)),
    results: new Float64Array(new SharedArrayBuffer(parts * (1 + 3 * k) * 8)),
  };
}

/**
 * Runs a job on the scan thread, unless the serving thread took it back
 * first: each part scanned as the serving thread would scan it (the same
 * search, in the memory's scan-thread lane), the hits written, then the
 * state set and the serving thread woken.
 */
export function runScanJob(job: ScanJob): void {
  const { control, results, query, k, parts } = job;
  if (Atomics.compareExchange(control, 0, JOB_STATE.posted, JOB_STATE.running) !== JOB_STATE.posted) return;
  let state: number = JOB_STATE.done;
  try {
    parts.forEach((part, p) => {
      const matrix = { data: part.data, dimension: part.dimension, count: part.count, chunkIds: part.chunkIds };
      const search = SignCodeSearch.over({ ...matrix, partitions: [] }, part.codes, candidatesFor, SCAN_THREAD_LANE);
      const hits = search.topK(query, k, part.ranges, part.deleted);
      const at = p * (1 + 3 * k);
      results[at] = hits.length;
      hits.forEach((hit, h) => {
        results[at + 1 + 3 * h] = hit.row;
        results[at + 2 + 3 * h] = hit.chunkId;
        results[at + 3 + 3 * h] = hit.score;
      });
    });
  } catch {
    // The serving thread scans the parts itself, where the failure shows if it is not this thread's own.
    state = JOB_STATE.failed;
  }
  Atomics.store(control, 0, state);
  Atomics.notify(control, 0);
}

/** The hits of each part of a job done. */
export function resultsOf(job: Pick<ScanJob, 'results' | 'k' | 'parts'>): ScoredRow[][] {
  const { results, k, parts } = job;
  return parts.map((_, p) => {
    const at = p * (1 + 3 * k);
    return Array.from({ length: results[at] ?? 0 }, (_, h) => ({
      row: results[at + 1 + 3 * h] ?? 0,
      chunkId: results[at + 2 + 3 * h] ?? 0,
      score: results[at + 3 + 3 * h] ?? 0,
    }));
  });
}
