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

/** The rows in both lists of ascending, disjoint ranges, as such a list. */
export function intersectRanges(a: readonly RowRange[], b: readonly RowRange[]): RowRange[] {
  const both: RowRange[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const [aStart, aEnd] = a[i] ?? [0, 0];
    const [bStart, bEnd] = b[j] ?? [0, 0];
    const start = Math.max(aStart, bStart);
    const end = Math.min(aEnd, bEnd);
    if (start < end) both.push([start, end]);
    if (aEnd < bEnd) i += 1;
    else j += 1;
  }
  return both;
}
