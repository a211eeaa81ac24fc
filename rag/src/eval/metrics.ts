/**
 * Ranking metrics as trec_eval defines them (docs/retrieval.md#eval): graded
 * gains, logarithmic discount from rank 1, the ideal ranking over every judged
 * relevant document, recall over every relevant document; a query without
 * hits scores 0, and the mean is over every judged query.
 */

export interface QueryScores {
  readonly ndcgAt10: number;
  readonly recallAt10: number;
  readonly recallAt100: number;
}

/** Document ids best first, each kept at its best rank (a document's rank is its best chunk's). */
export function dedupe(ranked: readonly string[]): string[] {
  return [...new Set(ranked)];
}

/** nDCG@k: Σ gain/log2(rank + 1) over the top k, divided by the same for the ideal order of the judged documents. */
export function ndcgAt(k: number, ranked: readonly string[], judged: ReadonlyMap<string, number>): number {
  const dcg = ranked.slice(0, k).reduce((sum, id, i) => sum + Math.max(0, judged.get(id) ?? 0) / Math.log2(i + 2), 0);
  const ideal = [...judged.values()]
    .filter((grade) => grade > 0)
    .sort((a, b) => b - a)
    .slice(0, k)
    .reduce((sum, grade, i) => sum + grade / Math.log2(i + 2), 0);
  return ideal > 0 ? dcg / ideal : 0;
}

/** Recall@k: relevant documents in the top k over all relevant documents. */
export function recallAt(k: number, ranked: readonly string[], judged: ReadonlyMap<string, number>): number {
  const relevant = [...judged].filter(([, grade]) => grade > 0).length;
  if (relevant === 0) return 0;
  return ranked.slice(0, k).filter((id) => (judged.get(id) ?? 0) > 0).length / relevant;
}

export function scoreQuery(ranked: readonly string[], judged: ReadonlyMap<string, number>): QueryScores {
  const docs = dedupe(ranked);
  return {
    ndcgAt10: ndcgAt(10, docs, judged),
    recallAt10: recallAt(10, docs, judged),
    recallAt100: recallAt(100, docs, judged),
  };
}

/** The mean of each metric over every judged query. */
export function meanScores(scores: readonly QueryScores[]): QueryScores {
  const mean = (pick: (s: QueryScores) => number) =>
    scores.length === 0 ? 0 : scores.reduce((sum, s) => sum + pick(s), 0) / scores.length;
  return {
    ndcgAt10: mean((s) => s.ndcgAt10),
    recallAt10: mean((s) => s.recallAt10),
    recallAt100: mean((s) => s.recallAt100),
  };
}
