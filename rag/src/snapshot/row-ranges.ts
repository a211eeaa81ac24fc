import type { RowRange } from '../vectors/vector-scan.js';

/** Rows (any order, no repeats) as the fewest ascending ranges. */
export function rangesOfRows(rows: readonly number[]): RowRange[] {
  const sorted = [...rows].sort((a, b) => a - b);
  const ranges: [number, number][] = [];
  for (const row of sorted) {
    const last = ranges[ranges.length - 1];
    if (last !== undefined && last[1] === row) last[1] = row + 1;
    else ranges.push([row, row + 1]);
  }
  return ranges;
}

/** The rows of `ranges` whose chunk (by `chunkIds`, one per row) is one of `chosen`, as the fewest ascending ranges. */
export function rangesHolding(
  chunkIds: ArrayLike<number>,
  ranges: readonly RowRange[],
  chosen: ReadonlySet<number>,
): RowRange[] {
  const held: number[] = [];
  for (const [start, end] of ranges) {
    for (let row = start; row < end; row += 1) if (chosen.has(chunkIds[row] ?? -1)) held.push(row);
  }
  return rangesOfRows(held);
}
