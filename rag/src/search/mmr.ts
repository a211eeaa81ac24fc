/**
 * Maximal marginal relevance (Carbonell & Goldstein 1998; docs/retrieval.md#fusion-and-mmr):
 * repeatedly picks argmax λ·rel(d) − (1−λ)·max_{s∈S} sim(d, s). `relevance`
 * is min–max normalized to [0, 1] over the pool first, so that it is
 * commensurable with cosine similarity; λ = 1 keeps the relevance order.
 *
 * @param relevance the pool's relevance scores, best first (the input order)
 * @param similarity cosine similarity of two pool members, by pool index
 * @returns pool indices in MMR order, at most `count`; ties go to the earlier pool member
 */
export function mmrOrder(
  relevance: readonly number[],
  similarity: (a: number, b: number) => number,
  lambda: number,
  count: number,
): number[] {
  const normalized = normalize(relevance);
  const picked: number[] = [];
  const remaining = new Set(normalized.map((_, i) => i));
  // Highest similarity of each candidate to anything picked so far.
  const maxSimilarity = normalized.map(() => Number.NEGATIVE_INFINITY);
  while (picked.length < count && remaining.size > 0) {
    let best = -1;
    let bestValue = Number.NEGATIVE_INFINITY;
    for (const i of remaining) {
      const redundancy = picked.length === 0 ? 0 : (maxSimilarity[i] ?? 0);
      const value = lambda * (normalized[i] ?? 0) - (1 - lambda) * redundancy;
      if (value > bestValue) {
        best = i;
        bestValue = value;
      }
    }
    picked.push(best);
    remaining.delete(best);
    for (const i of remaining) maxSimilarity[i] = Math.max(maxSimilarity[i] ?? 0, similarity(i, best));
  }
  return picked;
}

/** Min–max to [0, 1]; a pool whose scores are all equal is all 1. */
export function normalize(scores: readonly number[]): number[] {
  const min = Math.min(...scores);
  const max = Math.max(...scores);
  return scores.map((s) => (max > min ? (s - min) / (max - min) : 1));
}
