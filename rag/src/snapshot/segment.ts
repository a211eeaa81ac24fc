import type { VectorMatrix } from '../store/load-vectors.js';
import { type Int8Rows, Int8VectorSearch } from '../vectors/int8-scan.js';
import { pageUint32 } from '../vectors/page-arrays.js';
import { exactScan, noVectors, type VectorSearch } from '../vectors/vector-scan.js';
import { WordPostings, type WordPostingsParts } from '../words/word-postings.js';

/**
 * A segment as plain data (what a worker builds and posts): every typed
 * array is in shared memory, so posting it to another thread copies nothing.
 */
export interface SegmentParts {
  readonly matrix: VectorMatrix;
  /** The int8 copy for the WebAssembly scan; undefined without vectors or without WebAssembly. */
  readonly int8: Int8Rows | undefined;
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
    const { matrix, int8, idOrder } = this.parts;
    const vectors = int8 ? int8.memory.buffer.byteLength + 3 * int8.rowScale.byteLength : 0;
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

/** The WebAssembly int8 scan where the worker built its rows and this thread runs it; the plain scan otherwise. */
function searchOver(parts: SegmentParts): VectorSearch {
  if (parts.matrix.dimension === 0) return noVectors(parts.matrix);
  if (parts.int8 === undefined) return exactScan(parts.matrix);
  try {
    return Int8VectorSearch.over(parts.matrix, parts.int8);
  } catch {
    return exactScan(parts.matrix);
  }
}
