import type { VectorMatrix } from '../store/load-vectors.js';
import { type Int8Rows, Int8VectorSearch } from '../vectors/int8-scan.js';
import { pageUint32 } from '../vectors/page-arrays.js';
import { SignCodeSearch, type SignCodes } from '../vectors/sign-codes.js';
import { exactScan, noVectors, type VectorSearch } from '../vectors/vector-scan.js';
import { WordPostings, type WordPostingsParts } from '../words/word-postings.js';

/**
 * A segment as plain data (what a worker builds and posts): every typed
 * array is in shared memory, so posting it to another thread copies nothing.
 */
export interface SegmentParts {
  readonly matrix: VectorMatrix;
  /** The int8 copy for the exact WebAssembly scan; undefined without vectors, without WebAssembly, or with sign codes. */
  readonly int8: Int8Rows | undefined;
  /** The sign codes of a large segment's approximate scan (docs/retrieval.md#dense-leg); undefined for others. */
  readonly codes: SignCodes | undefined;
  /** The word postings; undefined when the word tier is ranked in SQLite. */
  readonly words: WordPostingsParts | undefined;
  /** The rows in ascending chunk id (rows are grouped by vault and namespace first). */
  readonly idOrder: Uint32Array;
}

/**
 * An immutable part of the in-memory index (docs/retrieval.md#snapshots): some
 * chunks' rows, grouped by (vault, namespace), with their vectors and, when
 * the word tier is ranked in memory, their word postings. A state of the
 * index is a list of segments and which of their rows it has deleted; a
 * commit adds a small segment, and merging replaces several with one.
 */
export class Segment {
  readonly vectors: VectorSearch;
  readonly words: WordPostings | undefined;

  constructor(readonly parts: SegmentParts) {
    this.vectors = searchOver(parts);
    this.words = parts.words ? new WordPostings(parts.words) : undefined;
  }

  get matrix(): VectorMatrix {
    return this.parts.matrix;
  }

  get rowCount(): number {
    return this.parts.matrix.count;
  }

  /** The row of a chunk (deleted or not), or -1. */
  rowOf(chunkId: number): number {
    const { idOrder, matrix } = this.parts;
    let low = 0;
    let high = idOrder.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((matrix.chunkIds[idOrder[middle] as number] as number) < chunkId) low = middle + 1;
      else high = middle;
    }
    const row = idOrder[low];
    return row !== undefined && matrix.chunkIds[row] === chunkId ? row : -1;
  }

  /** Bytes of the arrays held (the term strings come on top). */
  get byteLength(): number {
    const { matrix, int8, codes, idOrder } = this.parts;
    const vectors =
      (int8 ? int8.memory.buffer.byteLength + 3 * int8.rowScale.byteLength : 0) +
      (codes?.memory.buffer.byteLength ?? 0);
    return (
      matrix.data.byteLength + matrix.chunkIds.byteLength + idOrder.byteLength + vectors + (this.words?.byteLength ?? 0)
    );
  }
}

/** The rows of a matrix in ascending chunk id (a worker sorts them once per segment). */
export function idOrderOf(chunkIds: Float64Array): Uint32Array {
  const order = pageUint32(chunkIds.length);
  for (let row = 0; row < order.length; row += 1) order[row] = row;
  return order.sort((a, b) => (chunkIds[a] as number) - (chunkIds[b] as number));
}

/**
 * The WebAssembly scan of the codes or int8 rows the worker built, where this
 * thread runs it; the plain exact scan otherwise.
 */
function searchOver(parts: SegmentParts): VectorSearch {
  const { matrix, codes, int8 } = parts;
  if (matrix.dimension === 0) return noVectors(matrix);
  try {
    if (codes) return SignCodeSearch.over(matrix, codes);
    if (int8) return Int8VectorSearch.over(matrix, int8);
  } catch {
    // No WebAssembly (or its SIMD) on this thread (`--jitless`): the plain exact scan answers, slower.
  }
  return exactScan(matrix);
}
