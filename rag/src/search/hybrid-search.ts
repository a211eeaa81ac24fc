import { RagError } from '../errors/rag-error.js';
import type { HitRow } from '../snapshot/hit-rows.js';
import type { IndexSnapshot } from '../snapshot/index-snapshot.js';
import type { BegunNearest } from '../snapshot/segment-set.js';
import { dotRow } from '../vectors/vector-scan.js';
import type { WordScoring } from '../words/word-ranking.js';
import { DEFAULT_FUSION, type FusedCandidate, type FusionSettings, fuse, type LegHit } from './fusion.js';
import { type Correction, type LexicalTier, lexicalLeg } from './lexical-leg.js';
import { mmrOrder } from './mmr.js';

/** Which legs a search runs (docs/retrieval.md#post-search). */
export type SearchMode = 'hybrid' | 'dense' | 'lexical';
export const SEARCH_MODES: readonly SearchMode[] = ['hybrid', 'dense', 'lexical'];

/**
 * The most hits one search returns (`eval` reads 100 for Recall@100), the
 * depth of a leg searched alone, and the MMR pool. In hybrid each leg
 * contributes the fusion's own depth of candidates, whatever `top` is, so the
 * first page is the same for `top: 10` and `top: 50`
 * (docs/retrieval.md#fusion-and-mmr).
 */
export const LEG_DEPTH = 100;

export interface SearchOptions {
  readonly query: string;
  /** Hits to return, at most LEG_DEPTH. */
  readonly top: number;
  /** Vault ids to search (already checked against the config); undefined: all. */
  readonly vaults: readonly string[] | undefined;
  readonly namespaces: readonly string[] | undefined;
  /** Only notes with one of these frontmatter tags, or tags nested below one (docs/retrieval.md#tags); undefined: all. */
  readonly tags?: readonly string[] | undefined;
  readonly mode: SearchMode;
  readonly mmr: boolean;
  readonly mmrLambda: number;
  /** Whole notes instead of chunks: each note once, at its best chunk's place (docs/retrieval.md#post-search). */
  readonly files?: boolean;
  /** How hybrid fuses the legs; default DEFAULT_FUSION (`eval` and the benchmarks try others). */
  readonly fusion?: FusionSettings;
}

export interface SearchHit extends HitRow {
  /** Cosine similarity (dense) or the fused score (hybrid, lexical); see docs/retrieval.md#post-search. */
  readonly score: number;
  readonly denseRank: number | undefined;
  readonly lexicalRank: number | undefined;
}

export interface SearchResult {
  readonly hits: readonly SearchHit[];
  /** The lexical tiers that contributed ([] when the leg did not run or found nothing). */
  readonly lexicalTiers: readonly LexicalTier[];
  /** Where the word tier was ranked; undefined when the lexical leg did not run (dense). */
  readonly wordScoring: WordScoring | undefined;
  /** Query words taken for typos and what the lexical leg searched instead ([] when none, or the leg did not run). */
  readonly corrections: readonly Correction[];
}

export function isSearchMode(value: unknown): value is SearchMode {
  return (SEARCH_MODES as readonly unknown[]).includes(value);
}

/** Whether a search of these options reads the index's vectors. */
function needsVectors(options: Pick<SearchOptions, 'mode' | 'mmr'>): boolean {
  return options.mode !== 'lexical' || options.mmr;
}

/** Whether the query has to be embedded: the dense leg runs. */
export function needsQueryVector(mode: SearchMode): boolean {
  return mode !== 'lexical';
}

/** ERR_NO_VECTORS: the search asked for needs vectors (or a query model) that this index has not. */
export function noVectorsError(options: Pick<SearchOptions, 'mode' | 'mmr'>): RagError {
  return new RagError(
    'ERR_NO_VECTORS',
    `a ${options.mmr ? 'mmr' : options.mode} search needs vectors; this index has none`,
  );
}

/**
 * One search over one snapshot. Synchronous on purpose: the caller embeds the
 * query first (when the dense leg runs), then takes the current snapshot and
 * runs this to the end, so a reload can never swap the snapshot in the middle
 * of a request.
 */
export function searchSnapshot(
  snapshot: IndexSnapshot,
  queryVector: Float32Array | undefined,
  options: SearchOptions,
): SearchResult {
  if (options.top > LEG_DEPTH) throw new RangeError(`top is at most ${LEG_DEPTH}`);
  if (needsVectors(options) && snapshot.meta.dimension === 0) throw noVectorsError(options);
  const filter = snapshot.filter(options.vaults, options.namespaces, options.tags);
  const fusion = options.fusion ?? DEFAULT_FUSION;
  // A single leg lists LEG_DEPTH hits; in hybrid each leg contributes the fusion's depth of candidates.
  const depth = options.mode === 'hybrid' ? fusion.depth : LEG_DEPTH;
  let denseLeg: BegunNearest | undefined;
  if (options.mode !== 'lexical') {
    if (!queryVector) throw new Error(`a ${options.mode} search needs the query vector`);
    // The dense leg: top-k by cosine among the rows the filter passes (docs/retrieval.md#dense-leg); large
    // segments are scanned on the scan thread while this thread ranks the lexical leg.
    denseLeg = snapshot.beginNearest(queryVector, depth, filter);
  }
  const lexical =
    options.mode === 'dense'
      ? { chunkIds: [], scores: [], tiers: [], corrections: [], wordScoring: undefined }
      : lexicalLeg(options.query, depth, snapshot.lexical, filter.scope);
  const dense: LegHit[] = denseLeg?.rows() ?? [];
  // Dense alone keeps its cosine as the score.
  const candidates: FusedCandidate[] =
    options.mode === 'dense'
      ? dense.map((d, i) => ({ chunkId: d.chunkId, score: d.score, denseRank: i + 1, lexicalRank: undefined }))
      : fuse(
          dense,
          lexical.chunkIds.map((chunkId, i) => ({ chunkId, score: lexical.scores[i] ?? 0 })),
          fusion,
        );
  const chosen = options.files
    ? bestOfEachNote(
        snapshot,
        options.mmr ? diversify(snapshot, candidates, options.mmrLambda, LEG_DEPTH) : candidates,
        options.top,
      )
    : options.mmr
      ? diversify(snapshot, candidates, options.mmrLambda, options.top)
      : candidates.slice(0, options.top);
  const ids = chosen.map((c) => c.chunkId);
  const rows = options.files ? snapshot.noteRows(ids) : snapshot.hitRows(ids);
  const hits = rows.map((row, i) => {
    const c = chosen[i];
    return { ...row, score: c?.score ?? 0, denseRank: c?.denseRank, lexicalRank: c?.lexicalRank };
  });
  return { hits, lexicalTiers: lexical.tiers, wordScoring: lexical.wordScoring, corrections: lexical.corrections };
}

/** The first `top` candidates of distinct notes: a note ranks at its best chunk. */
function bestOfEachNote(snapshot: IndexSnapshot, ordered: readonly FusedCandidate[], top: number): FusedCandidate[] {
  const noteOf = snapshot.notesOf(ordered.map((c) => c.chunkId));
  const seen = new Set<number>();
  const best: FusedCandidate[] = [];
  for (const candidate of ordered) {
    const note = noteOf.get(candidate.chunkId);
    if (note === undefined || seen.has(note)) continue;
    seen.add(note);
    best.push(candidate);
    if (best.length === top) break;
  }
  return best;
}

/** MMR over the first LEG_DEPTH fused candidates, similarity from the stored chunk vectors (unit length: dot = cosine). */
function diversify(
  snapshot: IndexSnapshot,
  pool: readonly FusedCandidate[],
  lambda: number,
  top: number,
): FusedCandidate[] {
  const candidates = pool.slice(0, LEG_DEPTH);
  const { dimension } = snapshot.meta;
  const vectors = candidates.map((c) => snapshot.vectorOf(c.chunkId));
  const vectorOf = (i: number) => vectors[i] ?? new Float32Array(dimension);
  const order = mmrOrder(
    candidates.map((c) => c.score),
    (a, b) => dotRow(vectorOf(a), dimension, 0, vectorOf(b)),
    lambda,
    top,
  );
  return order.flatMap((i) => candidates[i] ?? []);
}
