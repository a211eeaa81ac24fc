import type { VectorMatrix } from '../store/load-vectors.js';
import { type DotI8, instantiateDotI8, KERNEL_DIM_MULTIPLE } from './dot-kernel.js';
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
const ROWS_PER_STEP = 4096;
const PAGE_BYTES = 65_536;

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
 * arithmetic as the plain scan, so the result is identical to it.
 */
export class Int8VectorSearch implements VectorSearch {
  readonly backend = 'wasm-simd-int8+exact-rescore';
  /** Per-row upper bounds of the current query (scratch, reused). */
  private readonly upper: Float64Array;

  private constructor(
    readonly matrix: VectorMatrix,
    private readonly dot: DotI8,
    private readonly memory: WebAssembly.Memory,
    private readonly layout: Layout,
    private readonly rowScale: Float64Array,
    private readonly residual: Float64Array,
    private readonly dequantizedNorm: Float64Array,
  ) {
    this.upper = new Float64Array(matrix.count);
  }

  /** Quantizes the matrix into WebAssembly memory, yielding to the event loop between steps. */
  static async build(matrix: VectorMatrix): Promise<Int8VectorSearch> {
    const { dimension, count } = matrix;
    if (dimension % KERNEL_DIM_MULTIPLE !== 0 || dimension > MAX_INT8_DIMENSION) {
      throw new Error(`the int8 kernel needs a dimension that is a multiple of 32, at most ${MAX_INT8_DIMENSION}`);
    }
    const layout = layoutFor(count, dimension);
    const memory = new WebAssembly.Memory({ initial: Math.ceil(layout.totalBytes / PAGE_BYTES) });
    const dot = instantiateDotI8(memory);
    const rows = new Int8Array(memory.buffer, layout.rowsAt, count * dimension);
    const rowScale = new Float64Array(count);
    const residual = new Float64Array(count);
    const dequantizedNorm = new Float64Array(count);
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
      if ((row + 1) % ROWS_PER_STEP === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    return new Int8VectorSearch(matrix, dot, memory, layout, rowScale, residual, dequantizedNorm);
  }

  topK(query: Float32Array, k: number, ranges: readonly RowRange[]): ScoredRows {
    const { dimension } = this.matrix;
    const quantized = this.quantizeQuery(query);
    const dots = new Int32Array(this.memory.buffer, this.layout.dotsAt, this.matrix.count);
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
        const approximate = (dots[row] ?? 0) / ((this.rowScale[row] ?? 1) * quantized.scale);
        const bound =
          quantized.norm * (this.residual[row] ?? 0) + quantized.error * (this.dequantizedNorm[row] ?? 0) + BOUND_SLACK;
        upper[row] = approximate + bound;
        lower.offer(row, row, approximate - bound);
      }
    }
    const cut = lower.threshold;
    const { data, chunkIds } = this.matrix;
    const best = new TopK(k);
    for (const [start, end] of ranges) {
      for (let row = start; row < end; row += 1) {
        if ((upper[row] ?? 0) >= cut) best.offer(row, chunkIds[row] ?? 0, dotRow(data, dimension, row, query));
      }
    }
    return best.sorted();
  }

  /** Writes the int16 query into memory; returns its scale, its norm and its quantization error norm. */
  private quantizeQuery(query: Float32Array): { scale: number; norm: number; error: number } {
    const target = new Int16Array(this.memory.buffer, this.layout.queryAt, this.matrix.dimension);
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

interface Layout {
  readonly queryAt: number;
  readonly dotsAt: number;
  readonly rowsAt: number;
  readonly totalBytes: number;
}

/** Query (int16), dot products (int32 per row), then the int8 rows, each 16-byte aligned. */
function layoutFor(count: number, dimension: number): Layout {
  const align = (n: number) => Math.ceil(n / 16) * 16;
  const queryAt = 0;
  const dotsAt = align(queryAt + dimension * 2);
  const rowsAt = align(dotsAt + count * 4);
  return { queryAt, dotsAt, rowsAt, totalBytes: Math.max(PAGE_BYTES, rowsAt + count * dimension) };
}
