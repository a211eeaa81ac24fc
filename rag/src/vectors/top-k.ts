/** One scored row of the vector matrix. */
export interface ScoredRow {
  readonly row: number;
  readonly chunkId: number;
  readonly score: number;
}

/** Ranking order everywhere in search: higher score first, then lower chunk id (deterministic ties). */
function compareScored(a: ScoredRow, b: ScoredRow): number {
  return b.score - a.score || a.chunkId - b.chunkId;
}

/**
 * Keeps the `k` best of a stream under `compareScored`, in a binary heap
 * whose root is the worst kept entry, so each offer costs O(log k) at most
 * and most offers one comparison.
 */
export class TopK {
  private readonly heap: ScoredRow[] = [];

  constructor(private readonly k: number) {}

  /** The worst kept score once full (anything below it cannot enter); -Infinity before. */
  get threshold(): number {
    return this.heap.length < this.k ? Number.NEGATIVE_INFINITY : (this.heap[0]?.score ?? Number.NEGATIVE_INFINITY);
  }

  offer(row: number, chunkId: number, score: number): void {
    if (this.k <= 0) return;
    if (this.heap.length < this.k) {
      this.heap.push({ row, chunkId, score });
      this.siftUp(this.heap.length - 1);
      return;
    }
    const root = this.heap[0];
    // Most offers stop here, without allocating.
    if (root === undefined || score < root.score || (score === root.score && chunkId >= root.chunkId)) return;
    this.heap[0] = { row, chunkId, score };
    this.siftDown(0);
  }

  /** Best first. */
  sorted(): ScoredRow[] {
    return [...this.heap].sort(compareScored);
  }

  private worse(i: number, j: number): boolean {
    const a = this.heap[i];
    const b = this.heap[j];
    return a !== undefined && b !== undefined && compareScored(a, b) > 0;
  }

  private swap(i: number, j: number): void {
    const a = this.heap[i];
    const b = this.heap[j];
    if (a === undefined || b === undefined) return;
    this.heap[i] = b;
    this.heap[j] = a;
  }

  private siftUp(start: number): void {
    let i = start;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.worse(i, parent)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private siftDown(start: number): void {
    let i = start;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let worst = i;
      if (left < this.heap.length && this.worse(left, worst)) worst = left;
      if (right < this.heap.length && this.worse(right, worst)) worst = right;
      if (worst === i) return;
      this.swap(i, worst);
      i = worst;
    }
  }
}
