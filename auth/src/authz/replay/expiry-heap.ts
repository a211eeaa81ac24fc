/** A deadline and the key it belongs to. */
export interface Expiry {
  readonly atMs: number;
  readonly key: string;
}

/**
 * Binary min-heap on `atMs`: the soonest deadline is always at the top, so evicting everything
 * already expired costs O(expired · log n) and never walks the live entries.
 */
export class ExpiryHeap {
  readonly #items: Expiry[] = [];

  get size(): number {
    return this.#items.length;
  }

  peek(): Expiry | undefined {
    return this.#items[0];
  }

  push(item: Expiry): void {
    const items = this.#items;
    let index = items.push(item) - 1;
    while (index > 0) {
      const parentIndex = (index - 1) >> 1;
      const parent = items[parentIndex];
      if (parent === undefined || parent.atMs <= item.atMs) break;
      items[index] = parent;
      index = parentIndex;
    }
    items[index] = item;
  }

  pop(): Expiry | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) return top;
    let index = 0;
    for (;;) {
      const leftIndex = 2 * index + 1;
      const left = items[leftIndex];
      if (left === undefined) break;
      const right = items[leftIndex + 1];
      let childIndex = leftIndex;
      let child = left;
      if (right !== undefined && right.atMs < left.atMs) {
        childIndex = leftIndex + 1;
        child = right;
      }
      if (child.atMs >= last.atMs) break;
      items[index] = child;
      index = childIndex;
    }
    items[index] = last;
    return top;
  }
}
