/** docs/retrieval.md#fusion-and-mmr: reciprocal rank fusion with k = 60 and ranks counted from 1. */
export const RRF_K = 60;

export interface FusedCandidate {
  readonly chunkId: number;
  /** Σ over the lists that hold the chunk of 1 / (RRF_K + rank). */
  readonly score: number;
  /** 1-based rank in the dense list, undefined when absent from it. */
  readonly denseRank: number | undefined;
  readonly lexicalRank: number | undefined;
}

/**
 * Fuses two ranked lists of chunk ids (best first, each already cut to its
 * top candidates). Ties of the fused score are broken by the better lexical
 * rank (an exact text match is the stronger evidence), then by the better
 * dense rank, then by the lower chunk id, so the order is deterministic.
 */
export function fuseRrf(dense: readonly number[], lexical: readonly number[]): FusedCandidate[] {
  const ranks = new Map<number, { dense?: number; lexical?: number }>();
  dense.forEach((id, i) => {
    if (!ranks.get(id)?.dense) ranks.set(id, { ...ranks.get(id), dense: i + 1 });
  });
  lexical.forEach((id, i) => {
    if (!ranks.get(id)?.lexical) ranks.set(id, { ...ranks.get(id), lexical: i + 1 });
  });
  const fused = [...ranks].map(([chunkId, r]) => ({
    chunkId,
    score: contribution(r.dense) + contribution(r.lexical),
    denseRank: r.dense,
    lexicalRank: r.lexical,
  }));
  return fused.sort(
    (a, b) =>
      b.score - a.score ||
      rankOrder(a.lexicalRank, b.lexicalRank) ||
      rankOrder(a.denseRank, b.denseRank) ||
      a.chunkId - b.chunkId,
  );
}

function contribution(rank: number | undefined): number {
  return rank === undefined ? 0 : 1 / (RRF_K + rank);
}

/** Present before absent, then lower first. */
function rankOrder(a: number | undefined, b: number | undefined): number {
  return (a ?? Number.POSITIVE_INFINITY) - (b ?? Number.POSITIVE_INFINITY) || 0;
}
