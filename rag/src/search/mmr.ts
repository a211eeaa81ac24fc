/**
 * Maximal marginal relevance (Carbonell & Goldstein 1998;
 * docs/retrieval.md#fusion-and-mmr): repeatedly picks
 * argmax λ·rel(d) − (1−λ)·max_{s∈S} sim(d, s). Both terms are min–max
 * normalized to [0, 1] over the pool, relevance over the candidates' scores and
 * similarity over every pair of candidates, so that λ weighs two quantities on
 * one scale: raw cosines of one topic's chunks sit in a narrow band (0.8–0.95
 * for e5), which would make the redundancy term nearly constant. λ = 1 keeps
 * the relevance order.
 *
 * @param relevance the pool's relevance scores, best first (the input order)
 * @param similarity similarity of two pool members, by pool index (symmetric)
 * @returns pool indices in MMR order, at most `count`; ties go to the earlier pool member
 */
export function mmrOrder(
  relevance: readonly number[],
  similarity: (a: number, b: number) => number,
  lambda: number,
  count: number,
): number[] {
  const rel = normalize(relevance);
  const redundancy = pairwiseNormalized(relevance.length, similarity);
  const picked: number[] = [];
  const remaining = new Set(rel.map((_, i) => i));
  // Highest normalized similarity of each candidate to anything picked so far.
  const maxRedundancy = rel.map(() => 0);
  while (picked.length < count && remaining.size > 0) {
    let best = -1;
    let bestValue = Number.NEGATIVE_INFINITY;
    for (const i of remaining) {
      const value = lambda * (rel[i] ?? 0) - (1 - lambda) * (maxRedundancy[i] ?? 0);
      if (value > bestValue) {
        best = i;
        bestValue = value;
      }
    }
    picked.push(best);
    remaining.delete(best);
    for (const i of remaining) maxRedundancy[i] = Math.max(maxRedundancy[i] ?? 0, redundancy(i, best));
  }
  return picked;
}

/** Min–max to [0, 1]; a pool whose scores are all equal is all 1. */
export function normalize(scores: readonly number[]): number[] {
  const min = Math.min(...scores);
  const max = Math.max(...scores);
  return scores.map((s) => (max > min ? (s - min) / (max - min) : 1));
}

/** Every pair's similarity, min–max normalized over the pairs (all 1 when every pair is alike). */
function pairwiseNormalized(
  size: number,
  similarity: (a: number, b: number) => number,
): (a: number, b: number) => number {
  const values = new Float64Array(size * size);
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (let a = 0; a < size; a += 1) {
    for (let b = a + 1; b < size; b += 1) {
      const value = similarity(a, b);
      values[a * size + b] = value;
      values[b * size + a] = value;
      min = Math.min(min, value);
      max = Math.max(max, value);
    }
  }
  return (a, b) => (max > min ? ((values[a * size + b] ?? 0) - min) / (max - min) : 1);
}
