/**
 * Groups item indexes into batches of similar token length, longest first:
 * a batch is padded to its longest input, so mixing lengths wastes compute.
 */
export function planBatches(tokenCounts: readonly number[], batchSize: number): number[][] {
  const order = tokenCounts.map((_, i) => i).sort((a, b) => (tokenCounts[b] ?? 0) - (tokenCounts[a] ?? 0) || a - b);
  const batches: number[][] = [];
  for (let i = 0; i < order.length; i += batchSize) batches.push(order.slice(i, i + batchSize));
  return batches;
}
