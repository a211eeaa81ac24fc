import type { VectorMatrix } from '../store/load-vectors.js';
import { type DotI8, instantiateDotI8, KERNEL_DIM_MULTIPLE } from './dot-kernel.js';
import { kernelLayout, kernelMemory } from './kernel-memory.js';
import { pageFloat64 } from './page-arrays.js';
import { TopK } from './top-k.js';
import { dotRow, type RowRange, type VectorSearch } from './vector-scan.js';

/**
 * Query components are scaled into int16 up to this magnitude. With int8 rows
 * (|x| ≤ 127) one product is at most 127 · 16383 and a 1024-dimension sum stays
 * below 2^31, so the kernel's i32 lanes never overflow.
 */
const QUERY_SCALE_MAX = 16_383;
const ROW_SCALE_MAX = 127;
const MAX_INT8_DIMENSION = 1024;
/** Covers float64 rounding between the bound and `dotRow` (both far below 1e-12 here). */
const BOUND_SLACK = 1e-9;

/**
 * The int8 copy of a matrix and what exact rescoring needs of each row
 * (docs/retrieval.md#dense-leg), in shared memory: a worker thread builds it
 * and hands it over without a copy (docs/retrieval.md#snapshots). The memory
 * holds the query (int16) and the dot products (int32 per row) before the
 * rows (`layoutFor`).
 */
export interface Int8Rows {
  readonly memory: WebAssembly.Memory;
  readonly rowScale: Float64Array;
  readonly residual: Float64Array;
  readonly dequantizedNorm: Float64Array;
}

/** Quantizes every row of the matrix: row scale 127 / max |x|, and the two norms the error bound needs. */
export function quantizeMatrix(matrix: VectorMatrix): Int8Rows {
  const { dimension, count } = matrix;
  const target = allocateInt8Rows(count, dimension);
  const { rows, rowScale, residual, dequantizedNorm } = target;
  for (let row = 0; row < count; row += 1) {
    const base = row * dimension;
    let max = 0;
    for (let j = 0; j < dimension; j += 1) max = Math.max(max, Math.abs(matrix.data[base + j] ?? 0));
    const scale = max > 0 ? ROW_SCALE_MAX / max : 1;
    let errorSquared = 0;
    let normSquared = 0;
    for (let j = 0; j < dimension; j += 1) {
      const x = matrix.data[base + j] ?? 0;
      const quantized = Math.max(-ROW_SCALE_MAX, Math.min(ROW_SCALE_MAX, Math.round(x * scale)));
      rows[base + j] = quantized;
      const restored = quantized / scale;
      errorSquared += (x - restored) ** 2;
      normSquared += restored ** 2;
    }
    rowScale[row] = scale;
    residual[row] = Math.sqrt(errorSquared);
    dequantizedNorm[row] = Math.sqrt(normSquared);
  }
  return target.int8;
}

/**
 * The int8 rows of a merged matrix, copied from the sources' rows without
 * quantizing again: row `i` is row `rowOf[i]` of source `sourceOf[i]`.
 */
export function gatherInt8Rows(
  sources: readonly Int8Rows[],
  dimension: number,
  sourceOf: Uint32Array,
  rowOf: Uint32Array,
): Int8Rows {
  const count = sourceOf.length;
  const target = allocateInt8Rows(count, dimension);
  const from = sources.map((source) => {
    const layout = layoutFor(source.rowScale.length, dimension);
    return new Int8Array(source.memory.buffer, layout.rowsAt, source.rowScale.length * dimension);
  });
  for (let i = 0; i < count; i += 1) {
    const s = sourceOf[i] as number;
    const r = rowOf[i] as number;
    const source = sources[s];
    const rows = from[s];
    if (source === undefined || rows === undefined) throw new RangeError(`no source ${s}`);
    target.rows.set(rows.subarray(r * dimension, (r + 1) * dimension), i * dimension);
    target.rowScale[i] = source.rowScale[r] as number;
    target.residual[i] = source.residual[r] as number;
    target.dequantizedNorm[i] = source.dequantizedNorm[r] as number;
  }
  return target.int8;
}

function allocateInt8Rows(count: number, dimension: number) {
  if (dimension % KERNEL_DIM_MULTIPLE !== 0 || dimension > MAX_INT8_DIMENSION) {
    throw new Error(`the int8 kernel needs a dimension that is a multiple of 32, at most ${MAX_INT8_DIMENSION}`);
  }
  const layout = layoutFor(count, dimension);
  const memory = kernelMemory(layout.totalBytes);
  const float64s = () => pageFloat64(count);
  const int8: Int8Rows = { memory, rowScale: float64s(), residual: float64s(), dequantizedNorm: float64s() };
  return { int8, ...int8, rows: new Int8Array(memory.buffer, layout.rowsAt, count * dimension) };
}

/**
 * Exact top-k at int8 memory traffic: a WebAssembly SIMD kernel scores every
 * filtered row against an int8 copy of the matrix (a quarter of the float32
 * bytes), then only rows that could still be in the top k are rescored
 * exactly from the float32 matrix.
 *
 * Why it stays exact: with x̃ the dequantized row and q̃ the dequantized query,
 * |q·x − q̃·x̃| ≤ ‖q‖·‖x − x̃‖ + ‖q − q̃‖·‖x̃‖ (Cauchy–Schwarz), and both norms of
 * each row are computed at load. Let L be the k-th largest lower bound. At
 * least k rows score ≥ L exactly, so a row whose upper bound is below L cannot
 * be in the top k; every other row is rescored with `dotRow`, the same
 * arithmetic as the plain scan, so the result is identical to it. Deleted rows
 * take part in neither step.
 */
export class Int8VectorSearch implements VectorSearch {
  readonly backend = 'wasm-simd-int8+exact-rescore';
  readonly exact = true;
  /** Per-row upper bounds of the current query (scratch, reused). */
  private readonly upper: Float64Array;
  private readonly layout: Layout;

  private constructor(
    readonly matrix: VectorMatrix,
    private readonly dot: DotI8,
    private readonly int8: Int8Rows,
  ) {
    this.upper = pageFloat64(matrix.count);
    this.layout = layoutFor(matrix.count, matrix.dimension);
  }

  /** The search over a matrix and its int8 rows; throws where WebAssembly SIMD is unavailable (`--jitless`). */
  static over(matrix: VectorMatrix, int8: Int8Rows): Int8VectorSearch {
    if (int8.rowScale.length !== matrix.count) throw new RangeError('the int8 rows are not those of the matrix');
    return new Int8VectorSearch(matrix, instantiateDotI8(int8.memory), int8);
  }

  topK(query: Float32Array, k: number, ranges: readonly RowRange[], deleted?: Uint8Array): ScoredRows {
    const { dimension } = this.matrix;
    const { memory, rowScale, residual, dequantizedNorm } = this.int8;
    const quantized = this.quantizeQuery(query);
    const dots = new Int32Array(memory.buffer, this.layout.dotsAt, this.matrix.count);
    for (const [start, end] of ranges) {
      this.dot(
        this.layout.queryAt,
        this.layout.rowsAt + start * dimension,
        end - start,
        dimension,
        this.layout.dotsAt + start * 4,
      );
    }
    const lower = new TopK(k);
    const upper = this.upper;
    for (const [start, end] of ranges) {
      for (let row = start; row < end; row += 1) {
        if (deleted?.[row] === 1) continue;
        const approximate = (dots[row] ?? 0) / ((rowScale[row] ?? 1) * quantized.scale);
        const bound =
          quantized.norm * (residual[row] ?? 0) + quantized.error * (dequantizedNorm[row] ?? 0) + BOUND_SLACK;
        upper[row] = approximate + bound;
        lower.offer(row, row, approximate - bound);
      }
    }
    const cut = lower.threshold;
    const { data, chunkIds } = this.matrix;
    const best = new TopK(k);
    for (const [start, end] of ranges) {
      for (let row = start; row < end; row += 1) {
        if (deleted?.[row] === 1) continue;
        if ((upper[row] ?? 0) >= cut) best.offer(row, chunkIds[row] ?? 0, dotRow(data, dimension, row, query));
      }
    }
    return best.sorted();
  }

  /** Writes the int16 query into memory; returns its scale, its norm and its quantization error norm. */
  private quantizeQuery(query: Float32Array): { scale: number; norm: number; error: number } {
    const target = new Int16Array(this.int8.memory.buffer, this.layout.queryAt, this.matrix.dimension);
    let max = 0;
    for (let j = 0; j < target.length; j += 1) max = Math.max(max, Math.abs(query[j] ?? 0));
    const scale = max > 0 ? QUERY_SCALE_MAX / max : 1;
    let normSquared = 0;
    let errorSquared = 0;
    for (let j = 0; j < target.length; j += 1) {
      const q = query[j] ?? 0;
      const quantized = Math.round(q * scale);
      target[j] = quantized;
      normSquared += q * q;
      errorSquared += (q - quantized / scale) ** 2;
    }
    return { scale, norm: Math.sqrt(normSquared), error: Math.sqrt(errorSquared) };
  }
}

type ScoredRows = ReturnType<VectorSearch['topK']>;

/** Query (int16), dot products (int32 per row), then the int8 rows. */
function layoutFor(count: number, dimension: number) {
  const { query, dots, rows, totalBytes } = kernelLayout([
    ['query', dimension * 2],
    ['dots', count * 4],
    ['rows', count * dimension],
  ]);
  return { queryAt: query, dotsAt: dots, rowsAt: rows, totalBytes };
}

type Layout = ReturnType<typeof layoutFor>;
