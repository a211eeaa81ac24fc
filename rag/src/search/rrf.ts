/** Reciprocal rank fusion's constant (docs/retrieval.md#fusion-and-mmr): 1/(60 + rank), ranks counted from 1. */
export const RRF_K = 60;

/** Weight of each leg's reciprocal rank (docs/retrieval.md#fusion-and-mmr). */
export interface FusionWeights {
  readonly dense: number;
  readonly lexical: number;
}

/**
 * Equal weights: the dense leg's quality cannot be measured where this was
 * built (no real model weights), so neither leg is favoured; the measurements
 * and the reasoning are in docs/retrieval.md#fusion-and-mmr.
 */
export const DEFAULT_FUSION_WEIGHTS: FusionWeights = { dense: 1, lexical: 1 };

export interface FusedCandidate {
  readonly chunkId: number;
  /** Σ over the lists that hold the chunk of weight / (RRF_K + rank). */
  readonly score: number;
  /** 1-based rank in the dense list, undefined when absent from it. */
  readonly denseRank: number | undefined;
  readonly lexicalRank: number | undefined;
}

/**
 * Fuses two ranked lists of chunk ids (best first, each already cut to its
 * leg's fixed depth). Ties of the fused score are broken by the better lexical
 * rank (an exact text match is the stronger evidence), then by the better
 * dense rank, then by the lower chunk id, so the order is deterministic.
 */
export function fuseRrf(
  dense: readonly number[],
  lexical: readonly number[],
  weights: FusionWeights = DEFAULT_FUSION_WEIGHTS,
): FusedCandidate[] {
  const ranks = new Map<number, { dense?: number; lexical?: number }>();
  dense.forEach((id, i) => {
    if (!ranks.get(id)?.dense) ranks.set(id, { ...ranks.get(id), dense: i + 1 });
  });
  lexical.forEach((id, i) => {
    if (!ranks.get(id)?.lexical) ranks.set(id, { ...ranks.get(id), lexical: i + 1 });
  });
  const fused = [...ranks].map(([chunkId, r]) => ({
    chunkId,
    score: contribution(r.dense, weights.dense) + contribution(r.lexical, weights.lexical),
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

function contribution(rank: number | undefined, weight: number): number {
  return rank === undefined ? 0 : weight / (RRF_K + rank);
}

/** Present before absent, then lower first. */
function rankOrder(a: number | undefined, b: number | undefined): number {
  return (a ?? Number.POSITIVE_INFINITY) - (b ?? Number.POSITIVE_INFINITY) || 0;
}
