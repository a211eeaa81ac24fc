import type { VectorMatrix } from '../store/load-vectors.js';
import { HAMMING_BYTE_MULTIPLE, HAMMING_MAX_BYTES, type Hamming, instantiateHamming } from './hamming-kernel.js';
import { kernelLayout, kernelMemory } from './kernel-memory.js';
import { instantiateSelect, SELECT_BLOCK, SELECT_HEADER_BYTES, type Select } from './select-kernel.js';
import { TopK } from './top-k.js';
import { dotRow, type RowRange, type VectorSearch } from './vector-scan.js';

/**
 * Ours: segments of at least this many rows are searched through sign codes
 * (docs/retrieval.md#dense-leg). An exact scan of a segment reads a byte per
 * dimension and row; below this size it answers within the search budget on
 * its own, and every smaller index stays exact.
 */
export const APPROXIMATE_FROM_ROWS = 250_000;
/**
 * Ours: the rows rescored exactly for a top k among `rows` live rows: ten
 * times k, and at least one in 500 rows. Recall against the exact scan
 * depends on the share of rows rescored more than on their number; at one in
 * 500, the exact top 10 of real MiniLM vectors is found 96% of the time
 * (docs/retrieval.md#dense-leg).
 */
export const candidatesFor = (k: number, rows: number): number => Math.max(10 * k, Math.ceil(rows / 500));

/** Ours: the rows the selection kernel lists a call (a lane's 32 KiB); a cut that passes more takes more calls. */
const SELECTED_CAPACITY = 8_192;

/**
 * One bit per dimension of each row of a matrix: whether the component lies
 * above the matrix's mean in that dimension. Embeddings of one model share a
 * common direction, on whose side most rows' raw components fall; about the
 * mean, a bit splits the rows where they differ (measured: recall a little
 * higher than with raw signs, never lower; docs/retrieval.md#dense-leg).
 * The memory holds two lanes of scratch (the query's code, a histogram of
 * distances, the distances: u16 per row, the rows selected as candidates),
 * one for the serving thread and one for the scan thread, so the two never
 * write the same bytes; then the codes, each region 16-byte aligned
 * (`layoutFor`), in shared memory that a worker thread builds and hands over
 * without a copy (docs/retrieval.md#snapshots).
 */
export interface SignCodes {
  readonly memory: WebAssembly.Memory;
  readonly centre: Float64Array;
  readonly count: number;
}

/** Which of a code memory's two scratch lanes a search writes: the serving thread's, or the scan thread's (docs/retrieval.md#dense-leg). */
export type ScanLane = 0 | 1;
export const SERVING_LANE: ScanLane = 0;
export const SCAN_THREAD_LANE: ScanLane = 1;

/** The bytes of one code: a bit per dimension, padded to the kernel's step (padding bits are 0 in every code). */
export function codeBytesOf(dimension: number): number {
  const bytes = Math.ceil(dimension / 8 / HAMMING_BYTE_MULTIPLE) * HAMMING_BYTE_MULTIPLE;
  if (bytes > HAMMING_MAX_BYTES) throw new Error(`sign codes take at most ${HAMMING_MAX_BYTES * 8} dimensions`);
  return bytes;
}

/** The sign codes of every row of the matrix, about `centre` (default: the matrix's per-dimension mean). */
export function signCodesOf(matrix: VectorMatrix, centre = meanOf(matrix)): SignCodes {
  const { data, dimension, count } = matrix;
  const bytes = codeBytesOf(dimension);
  const layout = layoutFor(count, bytes);
  const memory = kernelMemory(layout.totalBytes);
  const codes = new Uint8Array(memory.buffer, layout.codesAt, count * bytes);
  for (let row = 0; row < count; row += 1) {
    writeCode(data.subarray(row * dimension, (row + 1) * dimension), centre, codes, row * bytes);
  }
  return { memory, centre, count };
}

function meanOf(matrix: VectorMatrix): Float64Array {
  const { data, dimension, count } = matrix;
  const mean = new Float64Array(dimension);
  for (let row = 0; row < count; row += 1) {
    const base = row * dimension;
    for (let j = 0; j < dimension; j += 1) mean[j] = (mean[j] as number) + (data[base + j] as number);
  }
  if (count > 0) for (let j = 0; j < dimension; j += 1) mean[j] = (mean[j] as number) / count;
  return mean;
}

/** Sets bit `j` (byte j / 8, bit j mod 8) of the code at `at` when component j lies above the centre's. */
function writeCode(vector: Float32Array, centre: Float64Array, target: Uint8Array, at: number): void {
  for (let j = 0; j < vector.length; j += 1) {
    if ((vector[j] as number) > (centre[j] as number)) {
      const byte = at + (j >>> 3);
      target[byte] = (target[byte] as number) | (1 << (j & 7));
    }
  }
}

/**
 * Approximate top-k for large segments (docs/retrieval.md#dense-leg): a
 * WebAssembly kernel measures the Hamming distance of every filtered row's
 * code to the query's (an eighth of the bytes the int8 scan reads), the
 * `candidates(k, rows)` nearest live rows are chosen by a histogram of the
 * distances, and those alone are scored exactly with `dotRow`. Every score
 * returned is the exact one; a row the codes place beyond the candidates is
 * missed. When the filter leaves no more rows than candidates, every row is
 * scored: the result is the exact scan's.
 */
export class SignCodeSearch implements VectorSearch {
  readonly backend = 'wasm-sign-bits+exact-rescore';
  readonly exact = false;
  private readonly lane: Lane;
  private readonly codesAt: number;
  private readonly bytes: number;

  private constructor(
    readonly matrix: VectorMatrix,
    private readonly hamming: Hamming,
    private readonly select: Select,
    readonly codes: SignCodes,
    private readonly candidates: (k: number, rows: number) => number,
    lane: ScanLane,
  ) {
    this.bytes = codeBytesOf(matrix.dimension);
    const layout = layoutFor(matrix.count, this.bytes);
    this.lane = layout.lanes[lane];
    this.codesAt = layout.codesAt;
  }

  /**
   * The search over a matrix and its codes, writing the scratch lane given
   * (default the serving thread's); throws where WebAssembly is unavailable
   * (`--jitless`).
   */
  static over(
    matrix: VectorMatrix,
    codes: SignCodes,
    candidates = candidatesFor,
    lane: ScanLane = SERVING_LANE,
  ): SignCodeSearch {
    if (codes.count !== matrix.count) throw new RangeError('the sign codes are not those of the matrix');
    const hamming = instantiateHamming(codes.memory, codeBytesOf(matrix.dimension));
    return new SignCodeSearch(matrix, hamming, instantiateSelect(codes.memory), codes, candidates, lane);
  }

  topK(query: Float32Array, k: number, ranges: readonly RowRange[], deleted?: Uint8Array): ScoredRows {
    const { memory, centre } = this.codes;
    const { bytes, lane: layout, codesAt } = this;
    const queryCode = new Uint8Array(memory.buffer, layout.queryAt, bytes);
    queryCode.fill(0);
    writeCode(query, centre, queryCode, 0);
    const histogram = new Uint32Array(memory.buffer, layout.histogramAt, bytes * 8 + 1);
    histogram.fill(0);
    for (const [start, end] of ranges) {
      this.hamming(
        layout.queryAt,
        codesAt + start * bytes,
        end - start,
        layout.distancesAt + start * 2,
        layout.histogramAt,
      );
    }
    const distances = new Uint16Array(memory.buffer, layout.distancesAt, this.matrix.count);
    let rows = 0;
    for (const [start, end] of ranges) rows += end - start;
    if (deleted) rows -= uncountDeleted(histogram, distances, ranges, deleted);
    // The candidates: every live row nearer than `cut`, and the first `atCut` live rows at `cut` in row order.
    let wanted = this.candidates(k, rows);
    let cut = 0;
    while (cut < histogram.length - 1 && (histogram[cut] as number) < wanted) {
      wanted -= histogram[cut] as number;
      cut += 1;
    }
    let atCut = wanted;
    const { data, dimension, chunkIds } = this.matrix;
    const best = new TopK(k);
    const consider = (row: number) => {
      const distance = distances[row] as number;
      if (distance > cut || deleted?.[row] === 1) return;
      if (distance === cut) {
        if (atCut === 0) return;
        atCut -= 1;
      }
      best.offer(row, chunkIds[row] ?? 0, dotRow(data, dimension, row, query));
    };
    // The kernel lists the rows within the cut, whole blocks at a time and in row order (the rows at the
    // cut are taken in row order); the last rows of a range that fill no block are looked at here.
    const header = new Uint32Array(memory.buffer, layout.selectedAt, 2);
    const selected = new Uint32Array(memory.buffer, layout.selectedAt + SELECT_HEADER_BYTES, SELECTED_CAPACITY);
    for (const [start, end] of ranges) {
      const blocksEnd = end - ((end - start) % SELECT_BLOCK);
      let row = start;
      while (row < blocksEnd) {
        this.select(layout.distancesAt + row * 2, blocksEnd - row, cut, layout.selectedAt, SELECTED_CAPACITY);
        const listed = header[0] as number;
        for (let i = 0; i < listed; i += 1) consider(row + (selected[i] as number));
        row += header[1] as number;
      }
      for (; row < end; row += 1) consider(row);
    }
    return best.sorted();
  }
}

/**
 * The kernel counts every row of the ranges; deleted rows are taken out again.
 * Returns how many. A write deletes a few rows of a segment of up to millions,
 * so the flags are read four at a time where they are aligned, and a word
 * that is 0 (no row of four deleted) costs one load.
 */
function uncountDeleted(
  histogram: Uint32Array,
  distances: Uint16Array,
  ranges: readonly RowRange[],
  deleted: Uint8Array,
): number {
  const words =
    deleted.byteOffset % 4 === 0
      ? new Uint32Array(deleted.buffer, deleted.byteOffset, deleted.length >>> 2)
      : undefined;
  let count = 0;
  const uncount = (from: number, to: number) => {
    for (let row = from; row < to; row += 1) {
      if (deleted[row] === 1) {
        const distance = distances[row] as number;
        histogram[distance] = (histogram[distance] as number) - 1;
        count += 1;
      }
    }
  };
  for (const [start, end] of ranges) {
    if (words === undefined) {
      uncount(start, end);
      continue;
    }
    // The rows before the first whole word of four and after the last, one by one.
    const first = Math.min(end, (start + 3) & ~3);
    const last = Math.max(first, end & ~3);
    uncount(start, first);
    for (let word = first >>> 2; word < last >>> 2; word += 1) {
      if (words[word] !== 0) uncount(word * 4, word * 4 + 4);
    }
    uncount(last, end);
  }
  return count;
}

type ScoredRows = ReturnType<VectorSearch['topK']>;

/** Per lane the query's code, the histogram (u32 per distance), the distances (u16 per row) and the rows selected; then the codes. */
function layoutFor(count: number, bytes: number) {
  const at = kernelLayout([
    ['query0', bytes],
    ['histogram0', (bytes * 8 + 1) * 4],
    ['distances0', count * 2],
    ['selected0', SELECT_HEADER_BYTES + SELECTED_CAPACITY * 4],
    ['query1', bytes],
    ['histogram1', (bytes * 8 + 1) * 4],
    ['distances1', count * 2],
    ['selected1', SELECT_HEADER_BYTES + SELECTED_CAPACITY * 4],
    ['codes', count * bytes],
  ]);
  const lanes: readonly [Lane, Lane] = [
    { queryAt: at.query0, histogramAt: at.histogram0, distancesAt: at.distances0, selectedAt: at.selected0 },
    { queryAt: at.query1, histogramAt: at.histogram1, distancesAt: at.distances1, selectedAt: at.selected1 },
  ];
  return { lanes, codesAt: at.codes, totalBytes: at.totalBytes };
}

interface Lane {
  readonly queryAt: number;
  readonly histogramAt: number;
  readonly distancesAt: number;
  readonly selectedAt: number;
}
