/**
 * Fusing the dense and the lexical leg (docs/retrieval.md#fusion-and-mmr):
 * pure functions over the legs' ranked candidates.
 */

/** One leg's candidate: higher scores are better (cosine for dense, −bm25 for lexical). */
export interface LegHit {
  readonly chunkId: number;
  readonly score: number;
}

/** Weight of each leg. */
export interface FusionWeights {
  readonly dense: number;
  readonly lexical: number;
}

/**
 * The agreement guard: a query on which the legs' first `depth` candidates
 * share less than `full` of their chunks gets the dense weight cut in
 * proportion, so that a model that does not know the query's language cannot
 * push the lexical leg's hits down (docs/retrieval.md#fusion-and-mmr).
 */
export interface AgreementGuard {
  readonly depth: number;
  /** The shared fraction (0–1] from which the dense leg has its full weight. */
  readonly full: number;
}

export interface FusionSettings {
  /**
   * `rrf`: Σ weight/(k + rank), ranks from 1. `convex`: Σ weight·score, each
   * leg's scores min–max normalised over its candidates.
   */
  readonly method: 'rrf' | 'convex';
  /** RRF's constant. */
  readonly k: number;
  readonly weights: FusionWeights;
  /** Candidates each leg contributes, whatever `top` is. */
  readonly depth: number;
  readonly guard: AgreementGuard | undefined;
}

/**
 * Chosen with the real all-MiniLM-L6-v2 weights on SciFact train, among the
 * variants that stay within 1 point of the lexical leg when the dense leg is
 * wrong; reported on SciFact test and XQuAD (docs/retrieval.md#fusion-and-mmr).
 * `k` is RRF's and unused here.
 */
export const DEFAULT_FUSION: FusionSettings = {
  method: 'convex',
  k: 60,
  weights: { dense: 0.4, lexical: 0.6 },
  depth: 200,
  guard: undefined,
};

export interface FusedCandidate {
  readonly chunkId: number;
  /** The fused score (RRF sum or convex combination). */
  readonly score: number;
  /** 1-based rank in the dense list, undefined when absent from it. */
  readonly denseRank: number | undefined;
  readonly lexicalRank: number | undefined;
}

/**
 * Fuses two ranked lists (best first, each already cut to the settings'
 * depth). Ties of the fused score are broken by the better lexical rank (an
 * exact text match is the stronger evidence), then by the better dense rank,
 * then by the lower chunk id, so the order is deterministic. A chunk listed
 * twice in one leg counts at its first rank.
 */
export function fuse(dense: readonly LegHit[], lexical: readonly LegHit[], settings: FusionSettings): FusedCandidate[] {
  const denseWeight = settings.weights.dense * guardFactor(dense, lexical, settings.guard);
  const denseScores = legScores(dense, settings, denseWeight);
  const lexicalScores = legScores(lexical, settings, settings.weights.lexical);
  const ids = new Set([...denseScores.keys(), ...lexicalScores.keys()]);
  const fused = [...ids].map((chunkId) => {
    const d = denseScores.get(chunkId);
    const l = lexicalScores.get(chunkId);
    return {
      chunkId,
      score: (d?.score ?? 0) + (l?.score ?? 0),
      denseRank: d?.rank,
      lexicalRank: l?.rank,
    };
  });
  return fused.sort(
    (a, b) =>
      b.score - a.score ||
      rankOrder(a.lexicalRank, b.lexicalRank) ||
      rankOrder(a.denseRank, b.denseRank) ||
      a.chunkId - b.chunkId,
  );
}

/**
 * The share of chunks the legs' first `depth` candidates have in common, over
 * the shorter of the two lists; undefined when either leg is empty.
 */
export function legAgreement(dense: readonly LegHit[], lexical: readonly LegHit[], depth: number): number | undefined {
  const denseTop = new Set(dense.slice(0, depth).map((hit) => hit.chunkId));
  const lexicalTop = new Set(lexical.slice(0, depth).map((hit) => hit.chunkId));
  const shorter = Math.min(denseTop.size, lexicalTop.size);
  if (shorter === 0) return undefined;
  let shared = 0;
  for (const id of lexicalTop) if (denseTop.has(id)) shared += 1;
  return shared / shorter;
}

/** 1 without a guard or when a leg is empty (nothing to protect); else agreement/full, at most 1. */
function guardFactor(dense: readonly LegHit[], lexical: readonly LegHit[], guard: AgreementGuard | undefined): number {
  if (!guard) return 1;
  const agreement = legAgreement(dense, lexical, guard.depth);
  return agreement === undefined ? 1 : Math.min(1, agreement / guard.full);
}

/** Each chunk's rank (from 1) and weighted contribution in one leg. */
function legScores(
  hits: readonly LegHit[],
  settings: FusionSettings,
  weight: number,
): Map<number, { rank: number; score: number }> {
  const normalised = settings.method === 'convex' ? minMaxNormalised(hits) : [];
  const scores = new Map<number, { rank: number; score: number }>();
  hits.forEach((hit, i) => {
    if (scores.has(hit.chunkId)) return;
    const score = settings.method === 'rrf' ? weight / (settings.k + i + 1) : weight * (normalised[i] ?? 0);
    scores.set(hit.chunkId, { rank: i + 1, score });
  });
  return scores;
}

/**
 * The leg's scores mapped onto [0, 1] by min–max over its candidates. A leg
 * ranked in tiers (the lexical leg's phrase, words and substring tiers, each
 * with its own BM25 scale) is first made non-increasing along its order, so
 * that normalising never reorders the leg. A leg of equal scores maps to 1.
 */
function minMaxNormalised(hits: readonly LegHit[]): number[] {
  let floor = Number.POSITIVE_INFINITY;
  const monotone = hits.map((hit) => {
    floor = Math.min(floor, hit.score);
    return floor;
  });
  const top = monotone[0] ?? 0;
  const bottom = monotone.at(-1) ?? 0;
  return monotone.map((score) => (top === bottom ? 1 : (score - bottom) / (top - bottom)));
}

/** Present before absent, then lower first. */
function rankOrder(a: number | undefined, b: number | undefined): number {
  return (a ?? Number.POSITIVE_INFINITY) - (b ?? Number.POSITIVE_INFINITY) || 0;
}
