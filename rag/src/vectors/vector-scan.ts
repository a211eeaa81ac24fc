import type { VectorMatrix } from '../store/load-vectors.js';
import { type ScoredRow, TopK } from './top-k.js';

/** Rows `[start, end)` of the matrix that pass a filter. */
export type RowRange = readonly [start: number, end: number];

/** Nearest neighbours by dot product (the vectors are L2-normalized: cosine similarity). */
export interface VectorSearch {
  /** Backend name shown by /health. */
  readonly backend: string;
  /** Whether `topK` is the exact top k (else the rows it returns are scored exactly, but some may be missed). */
  readonly exact: boolean;
  readonly matrix: VectorMatrix;
  /**
   * The `k` rows of `ranges` with the highest dot product with `query`, best
   * first, ties by chunk id; rows marked in `deleted` (1) are left out before
   * the cut.
   */
  topK(query: Float32Array, k: number, ranges: readonly RowRange[], deleted?: Uint8Array): ScoredRow[];
}

/**
 * Dot product of a query with matrix row `row`, in float64. Four independent partial sums let the
 * CPU overlap the multiply-adds (about 2x the single-sum loop at 384 dimensions); every caller uses
 * this one function, so the exact scan and the int8 backend's rescoring agree to the last bit.
 */
export function dotRow(data: Float32Array, dimension: number, row: number, query: Float32Array): number {
  const base = row * dimension;
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let j = 0;
  // The indices stay below `dimension` (query length) and the row's end, so `as number` only drops
  // the noUncheckedIndexedAccess undefined that a `?? 0` would pay for on every element.
  for (; j + 3 < dimension; j += 4) {
    s0 += (query[j] as number) * (data[base + j] as number);
    s1 += (query[j + 1] as number) * (data[base + j + 1] as number);
    s2 += (query[j + 2] as number) * (data[base + j + 2] as number);
    s3 += (query[j + 3] as number) * (data[base + j + 3] as number);
  }
  for (; j < dimension; j += 1) s0 += (query[j] as number) * (data[base + j] as number);
  return s0 + s1 + (s2 + s3);
}

/**
 * The plain exact scan: every row of the ranges, scored with `dotRow`. It is
 * the reference the faster backend must match and the fallback where
 * WebAssembly SIMD is unavailable.
 */
export function exactScan(matrix: VectorMatrix): VectorSearch {
  return {
    backend: 'js-exact-f32',
    exact: true,
    matrix,
    topK: (query, k, ranges, deleted) => {
      const { data, dimension, chunkIds } = matrix;
      const best = new TopK(k);
      for (const [start, end] of ranges) {
        for (let row = start; row < end; row += 1) {
          if (deleted?.[row] !== 1) best.offer(row, chunkIds[row] ?? 0, dotRow(data, dimension, row, query));
        }
      }
      return best.sorted();
    },
  };
}

/** The ranges covering every row whose vault and namespace pass the filter (undefined: no restriction). */
export function rangesFor(
  matrix: Pick<VectorMatrix, 'partitions'>,
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

/**
 * The back-end of an index without vectors (`embed_model: none`,
 * docs/retrieval.md#lexical-only-indexes): its matrix still groups the chunks
 * by vault and namespace, but nothing can be scanned. Requests that need
 * vectors are refused before they reach it.
 */
export function noVectors(matrix: VectorMatrix): VectorSearch {
  return {
    backend: 'none',
    exact: true,
    matrix,
    topK: () => {
      throw new Error('this index has no vectors');
    },
  };
}
