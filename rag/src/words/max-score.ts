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

/**
 * A phrase walked in full costs a pass over its postings wherever its rows
 * are; one whose postings are at most this share of the query's is walked in
 * any case, which leaves fewer rows in the running for less than the common
 * phrases would cost.
 */
const CHEAP_SHARE = 1 / 16;

/** What a phrase can add to a row's score at most, and how many postings walking it costs. */
export interface PhraseCost {
  readonly bound: number;
  readonly postings: number;
}

/**
 * The phrases to walk in full first: every cheap one, then the others from
 * the largest bound down until the walked bounds sum above the bounds of the
 * rest (before that no threshold can exclude a row holding no walked phrase).
 * Undefined when those hold more than half of the postings: pruning would
 * save less than it costs.
 */
export function firstWalked(phrases: readonly PhraseCost[]): number[] | undefined {
  let all = 0;
  for (const { postings } of phrases) all += postings;
  const walked = phrases.flatMap(({ postings }, p) => (postings <= all * CHEAP_SHARE ? [p] : []));
  for (const p of byBound(phrases, walked)) {
    if (boundOf(phrases, walked) > boundLeft(phrases, walked)) break;
    walked.push(p);
  }
  let postings = 0;
  for (const p of walked) postings += phrases[p]?.postings ?? 0;
  return postings * 2 > all ? undefined : walked;
}

/** The phrases not in `walked`, largest bound first (ties in the given order). */
export function byBound(phrases: readonly PhraseCost[], walked: readonly number[]): number[] {
  return phrases
    .flatMap((_, p) => (walked.includes(p) ? [] : [p]))
    .sort((a, b) => (phrases[b]?.bound ?? 0) - (phrases[a]?.bound ?? 0) || a - b);
}

/** The sum of the bounds of the phrases not in `walked`: the most a row holding none of those can score. */
export function boundLeft(phrases: readonly PhraseCost[], walked: readonly number[]): number {
  let sum = 0;
  phrases.forEach(({ bound }, p) => {
    if (!walked.includes(p)) sum += bound;
  });
  return sum;
}

function boundOf(phrases: readonly PhraseCost[], walked: readonly number[]): number {
  let sum = 0;
  for (const p of walked) sum += phrases[p]?.bound ?? 0;
  return sum;
}

/**
 * The k-th largest of the values offered, -Infinity while fewer than k were:
 * a min-heap of the k largest so far. A caller asks `admits` first, so most
 * values cost one comparison and nothing else about them is read.
 */
export class KthLargest {
  private readonly heap: Float64Array;
  private size = 0;

  constructor(private readonly k: number) {
    this.heap = new Float64Array(Math.max(k, 0));
  }

  /** Whether `value` would enter the k largest kept. */
  admits(value: number): boolean {
    return this.size < this.k || value > (this.heap[0] as number);
  }

  /** Keeps `value` among the k largest; only for a value `admits`. */
  offer(value: number): void {
    const { heap, k } = this;
    if (this.size < k) {
      let at = this.size;
      this.size += 1;
      while (at > 0) {
        const parent = (at - 1) >> 1;
        if ((heap[parent] as number) <= value) break;
        heap[at] = heap[parent] as number;
        at = parent;
      }
      heap[at] = value;
      return;
    }
    // The root (the least kept) is replaced and the order restored.
    let at = 0;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= k) break;
      const right = left + 1;
      const child = right < k && (heap[right] as number) < (heap[left] as number) ? right : left;
      if ((heap[child] as number) >= value) break;
      heap[at] = heap[child] as number;
      at = child;
    }
    heap[at] = value;
  }

  get value(): number {
    return this.k > 0 && this.size === this.k ? (this.heap[0] as number) : Number.NEGATIVE_INFINITY;
  }
}
