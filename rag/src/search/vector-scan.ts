import type { VectorMatrix } from '../store/load-vectors.js';
import { type ScoredRow, TopK } from './top-k.js';

/** Rows `[start, end)` of the matrix that pass a filter. */
export type RowRange = readonly [start: number, end: number];

/** Exact nearest neighbours by dot product (the vectors are L2-normalized: cosine similarity). */
export interface VectorSearch {
  /** Backend name shown by /health. */
  readonly backend: string;
  readonly matrix: VectorMatrix;
  /** The `k` rows of `ranges` with the highest dot product with `query`, best first, ties by chunk id. */
  topK(query: Float32Array, k: number, ranges: readonly RowRange[]): ScoredRow[];
}

/** Dot product of a query with matrix row `row`, accumulated in float64 in index order. */
export function dotRow(data: Float32Array, dimension: number, row: number, query: Float32Array): number {
  const base = row * dimension;
  let sum = 0;
  for (let j = 0; j < dimension; j += 1) sum += (query[j] ?? 0) * (data[base + j] ?? 0);
  return sum;
}

/**
 * The plain exact scan: every row of the ranges, scored with `dotRow`. It is
 * the reference the faster backend must match and the fallback where
 * WebAssembly SIMD is unavailable.
 */
export function exactScan(matrix: VectorMatrix): VectorSearch {
  return {
    backend: 'js-exact-f32',
    matrix,
    topK: (query, k, ranges) => {
      const { data, dimension, chunkIds } = matrix;
      const best = new TopK(k);
      for (const [start, end] of ranges) {
        for (let row = start; row < end; row += 1)
          best.offer(row, chunkIds[row] ?? 0, dotRow(data, dimension, row, query));
      }
      return best.sorted();
    },
  };
}

/** The ranges covering every row whose vault and namespace pass the filter (undefined: no restriction). */
export function rangesFor(
  matrix: VectorMatrix,
  vaults: readonly string[] | undefined,
  namespaces: readonly string[] | undefined,
): RowRange[] {
  const ranges: [number, number][] = [];
  for (const p of matrix.partitions) {
    if (vaults !== undefined && !vaults.includes(p.vault)) continue;
    if (namespaces !== undefined && !namespaces.includes(p.namespace)) continue;
    const last = ranges[ranges.length - 1];
    if (last !== undefined && last[1] === p.start) last[1] = p.end;
    else ranges.push([p.start, p.end]);
  }
  return ranges;
}
