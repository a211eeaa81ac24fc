import type { Partition, VectorMatrix } from '../store/load-vectors.js';
import { pageFloat32, pageFloat64, pageInt32, pageUint32 } from './page-arrays.js';

/** The rows of one segment to merge: its chunk ids and groups, and which of them are deleted (1). */
export interface MergeSource {
  readonly rows: Pick<VectorMatrix, 'chunkIds' | 'partitions'>;
  readonly deleted: Uint8Array | undefined;
}

/**
 * Where every row of a merged segment comes from (docs/retrieval.md#snapshots):
 * the live rows of the sources, grouped by (vault, namespace) and in
 * ascending chunk id inside a group, as a segment's rows always are.
 */
export interface RowMerge {
  readonly chunkIds: Float64Array;
  readonly partitions: readonly Partition[];
  /** Per merged row: the source it comes from, and its row there. */
  readonly sourceOf: Uint32Array;
  readonly rowOf: Uint32Array;
  /** Per source: each of its rows' merged row, or -1 for a deleted row (left out). */
  readonly mergedRowOf: readonly Int32Array[];
}

/** The merged rows of `sources`: a k-way merge by chunk id inside each (vault, namespace) group. */
export function planRowMerge(sources: readonly MergeSource[]): RowMerge {
  const groups = new Map<string, { vault: string; namespace: string; runs: Run[] }>();
  sources.forEach((source, s) => {
    for (const p of source.rows.partitions) {
      const key = JSON.stringify([p.vault, p.namespace]);
      const group = groups.get(key) ?? { vault: p.vault, namespace: p.namespace, runs: [] };
      group.runs.push({ source: s, next: p.start, end: p.end });
      groups.set(key, group);
    }
  });
  const live = sources.reduce((sum, source) => sum + liveRows(source), 0);
  const chunkIds = pageFloat64(live);
  const sourceOf = pageUint32(live);
  const rowOf = pageUint32(live);
  const mergedRowOf = sources.map((source) => pageInt32(source.rows.chunkIds.length).fill(-1));
  const partitions: Partition[] = [];
  let merged = 0;
  for (const group of [...groups.values()].sort(byGroup)) {
    const start = merged;
    for (;;) {
      const run = nextRun(group.runs, sources);
      if (run === undefined) break;
      const row = run.next;
      run.next += 1;
      chunkIds[merged] = sources[run.source]?.rows.chunkIds[row] ?? 0;
      sourceOf[merged] = run.source;
      rowOf[merged] = row;
      const map = mergedRowOf[run.source];
      if (map) map[row] = merged;
      merged += 1;
    }
    if (merged > start) partitions.push({ vault: group.vault, namespace: group.namespace, start, end: merged });
  }
  return { chunkIds, partitions, sourceOf, rowOf, mergedRowOf };
}

/** The merged matrix: each merged row's vector copied from its source. */
export function mergeMatrices(sources: readonly VectorMatrix[], plan: RowMerge): VectorMatrix {
  const dimension = sources[0]?.dimension ?? 0;
  const count = plan.chunkIds.length;
  const data = pageFloat32(count * dimension);
  if (dimension > 0) {
    for (let i = 0; i < count; i += 1) {
      const source = sources[plan.sourceOf[i] as number];
      const row = plan.rowOf[i] as number;
      if (!source) throw new RangeError('a merged row names no source');
      data.set(source.data.subarray(row * dimension, (row + 1) * dimension), i * dimension);
    }
  }
  return { dimension, count, data, chunkIds: plan.chunkIds, partitions: plan.partitions };
}

interface Run {
  readonly source: number;
  next: number;
  readonly end: number;
}

function liveRows(source: MergeSource): number {
  const { deleted } = source;
  const rows = source.rows.chunkIds.length;
  if (deleted === undefined) return rows;
  let count = 0;
  for (let row = 0; row < rows; row += 1) if (deleted[row] !== 1) count += 1;
  return count;
}

/** The run whose next live row has the lowest chunk id (deleted rows are skipped on the way). */
function nextRun(runs: readonly Run[], sources: readonly MergeSource[]): Run | undefined {
  let best: Run | undefined;
  let bestId = Number.POSITIVE_INFINITY;
  for (const run of runs) {
    const source = sources[run.source];
    if (!source) continue;
    while (run.next < run.end && source.deleted?.[run.next] === 1) run.next += 1;
    if (run.next >= run.end) continue;
    const id = source.rows.chunkIds[run.next] ?? 0;
    if (id < bestId) {
      best = run;
      bestId = id;
    }
  }
  return best;
}

/** Groups in vault, then namespace order (any fixed order would do: a filter is a set of row ranges). */
function byGroup(a: { vault: string; namespace: string }, b: { vault: string; namespace: string }): number {
  return compareText(a.vault, b.vault) || compareText(a.namespace, b.namespace);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
