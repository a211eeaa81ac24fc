import type { ScoredRow } from '../vectors/top-k.js';
import type { RowRange, VectorSearch } from '../vectors/vector-scan.js';

/**
 * The vector leg: exact top-`count` by cosine similarity among the rows that
 * pass the filter. The filter is applied before the cut because the scan only
 * visits the filter's row ranges (docs/retrieval.md#filters).
 */
export function denseLeg(
  vectors: VectorSearch,
  queryVector: Float32Array,
  count: number,
  ranges: readonly RowRange[],
): ScoredRow[] {
  if (queryVector.length !== vectors.matrix.dimension) {
    throw new Error(`query vector has ${queryVector.length} dimensions, the index ${vectors.matrix.dimension}`);
  }
  return vectors.topK(queryVector, count, ranges);
}
