/**
 * The pure parts of MaxScore pruning (Turtle & Flood 1995) for the in-memory
 * BM25 ranking (docs/retrieval.md#lexical-leg): which phrases must be walked
 * in full, and when a row can no longer reach the best k.
 */

/**
 * How much a bound may fall short of a score through rounding, relative to
 * the threshold it is compared with: bounds and partial scores are summed in
 * another order than a row's score, which moves a sum of a few dozen terms by
 * far less than this.
 */
const RELATIVE_SLACK = 1e-9;

/**
 * Whether a row whose score is at most `upperBound` is certainly out of a
 * best k whose k-th score is at least `threshold`. Strictly below, with room
 * for rounding: a row with the k-th score itself can still enter (ties go to
 * the lower chunk id).
 */
export function cannotReach(upperBound: number, threshold: number): boolean {
  return upperBound + Math.abs(threshold) * RELATIVE_SLACK < threshold;
}

/** The order in which phrases are walked, and what the phrases after each one can add at most. */
export interface PruningOrder {
  /** Indices of the phrases, largest bound first (ties in the given order). */
  readonly order: readonly number[];
  /** `remaining[j]`: the sum of the bounds of `order[j + 1 …]`; `remaining[-1]` is `total`. */
  readonly remaining: Float64Array;
  /** The sum of every bound. */
  readonly total: number;
}

/** Phrases from the largest upper bound of their contribution down, with the suffix sums of the bounds. */
export function pruningOrder(bounds: readonly number[]): PruningOrder {
  const order = bounds.map((_, p) => p).sort((a, b) => (bounds[b] as number) - (bounds[a] as number) || a - b);
  const remaining = new Float64Array(order.length);
  let sum = 0;
  for (let j = order.length - 1; j >= 0; j -= 1) {
    remaining[j] = sum;
    sum += bounds[order[j] as number] as number;
  }
  return { order, remaining, total: sum };
}

/**
 * The k-th largest of `count` values read through `valueAt`, -Infinity when
 * there are fewer than k: a min-heap of the k largest so far, so most values
 * cost one comparison.
 */
export function kthLargest(k: number, count: number, valueAt: (i: number) => number | undefined): number {
  if (k <= 0 || count < k) return Number.NEGATIVE_INFINITY;
  const heap = new Float64Array(k);
  let size = 0;
  for (let i = 0; i < count; i += 1) {
    const value = valueAt(i);
    if (value === undefined) continue;
    if (size < k) {
      let at = size;
      size += 1;
      while (at > 0) {
        const parent = (at - 1) >> 1;
        if ((heap[parent] as number) <= value) break;
        heap[at] = heap[parent] as number;
        at = parent;
      }
      heap[at] = value;
    } else if (value > (heap[0] as number)) {
      siftDown(heap, k, value);
    }
  }
  return size < k ? Number.NEGATIVE_INFINITY : (heap[0] as number);
}

/** Replaces the root of a full min-heap by `value` and restores the order. */
function siftDown(heap: Float64Array, size: number, value: number): void {
  let at = 0;
  for (;;) {
    const left = 2 * at + 1;
    if (left >= size) break;
    const right = left + 1;
    const child = right < size && (heap[right] as number) < (heap[left] as number) ? right : left;
    if ((heap[child] as number) >= value) break;
    heap[at] = heap[child] as number;
    at = child;
  }
  heap[at] = value;
}
