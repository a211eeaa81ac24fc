import type { HitRow } from '../snapshot/hit-rows.js';
import type { IndexSnapshot, SnapshotFilter } from '../snapshot/index-snapshot.js';
import { dotRow } from '../vectors/vector-scan.js';
import { denseLeg } from './dense-leg.js';
import { type LexicalPath, type LexicalSource, lexicalLeg } from './lexical-leg.js';
import { mmrOrder } from './mmr.js';
import { type FusedCandidate, fuseRrf } from './rrf.js';

export interface SearchOptions {
  readonly query: string;
  readonly top: number;
  /** Vault ids to search (already checked against the config). */
  readonly vaults: readonly string[];
  readonly namespaces: readonly string[] | undefined;
  readonly hybrid: boolean;
  readonly mmr: boolean;
  readonly mmrLambda: number;
}

export interface SearchHit extends HitRow {
  /** Cosine similarity (dense only) or the fused RRF score (hybrid); docs/retrieval.md#post-search. */
  readonly score: number;
  readonly denseRank: number | undefined;
  readonly lexicalRank: number | undefined;
}

export interface SearchResult {
  readonly hits: readonly SearchHit[];
  readonly lexicalPath: LexicalPath;
}

/** docs/retrieval.md#fusion-and-mmr: each leg contributes its top max(4·top, 50) to fusion (and to the MMR pool). */
export function candidatePoolSize(top: number): number {
  return Math.max(4 * top, 50);
}

/**
 * One search over one snapshot. Synchronous on purpose: the caller embeds the
 * query first, then takes the current snapshot and runs this to the end, so a
 * reload can never swap the snapshot in the middle of a request.
 */
export function searchSnapshot(
  snapshot: IndexSnapshot,
  queryVector: Float32Array,
  options: SearchOptions,
): SearchResult {
  const filter = snapshot.filter(options.vaults, options.namespaces);
  const pool = candidatePoolSize(options.top);
  const dense = denseLeg(
    snapshot.vectors,
    queryVector,
    options.hybrid || options.mmr ? pool : options.top,
    filter.ranges,
  );
  const denseIds = dense.map((d) => d.chunkId);
  let candidates: FusedCandidate[];
  let lexicalPath: LexicalPath = 'none';
  if (options.hybrid) {
    const lexical = lexicalLeg(options.query, pool, denseIds, lexicalSource(snapshot, filter));
    lexicalPath = lexical.path;
    candidates = fuseRrf(denseIds, lexical.chunkIds);
  } else {
    candidates = dense.map((d, i) => ({
      chunkId: d.chunkId,
      score: d.score,
      denseRank: i + 1,
      lexicalRank: undefined,
    }));
  }
  const chosen = options.mmr ? diversify(snapshot, candidates, options) : candidates.slice(0, options.top);
  const rows = snapshot.hitRows(chosen.map((c) => c.chunkId));
  const hits = rows.map((row, i) => {
    const c = chosen[i];
    return { ...row, score: c?.score ?? 0, denseRank: c?.denseRank, lexicalRank: c?.lexicalRank };
  });
  return { hits, lexicalPath };
}

/** The lexical leg's view of a snapshot under a filter. */
export function lexicalSource(snapshot: IndexSnapshot, filter: SnapshotFilter): LexicalSource {
  return {
    tokenizer: snapshot.meta.ftsTokenizer,
    matches: (expression, limit) => snapshot.ftsMatches(expression, limit),
    matchIds: (expression, limit) => snapshot.ftsMatchIds(expression, limit),
    substringMatches: (text, limit) => snapshot.substringMatches(text, limit, filter),
    texts: (ids) => snapshot.texts(ids),
    accepts: filter.accepts,
  };
}

/** MMR over the candidate pool, similarity from the stored chunk vectors (unit length: dot = cosine). */
function diversify(snapshot: IndexSnapshot, pool: readonly FusedCandidate[], options: SearchOptions): FusedCandidate[] {
  const { data, dimension } = snapshot.vectors.matrix;
  const rows = pool.map((c) => snapshot.rowOf(c.chunkId));
  const vectorOf = (i: number) => data.subarray((rows[i] ?? 0) * dimension, ((rows[i] ?? 0) + 1) * dimension);
  const order = mmrOrder(
    pool.map((c) => c.score),
    (a, b) => dotRow(data, dimension, rows[a] ?? 0, vectorOf(b)),
    options.mmrLambda,
    options.top,
  );
  return order.flatMap((i) => pool[i] ?? []);
}
