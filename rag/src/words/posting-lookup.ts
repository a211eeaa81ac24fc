/**
 * The first index in `[from, end)` whose key is at least `key` (`end` when
 * none), in a run of ascending keys: galloping forward from `from` (1, 2, 4, …
 * steps) then halving, so that looking up ascending keys one after the other
 * costs the logarithm of the distance between them, not of the run.
 */
export function firstAtLeast(keyAt: (i: number) => number, from: number, end: number, key: number): number {
  if (from >= end || keyAt(from) >= key) return from;
  // keyAt(low) < key; high === end or keyAt(high) >= key.
  let low = from;
  let step = 1;
  let high = from + 1;
  while (high < end && keyAt(high) < key) {
    low = high;
    step *= 2;
    high = Math.min(end, low + step);
  }
  while (high - low > 1) {
    const middle = (low + high) >>> 1;
    if (keyAt(middle) < key) low = middle;
    else high = middle;
  }
  return high;
}
