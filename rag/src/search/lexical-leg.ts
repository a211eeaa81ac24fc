import type { ChunkText } from '../snapshot/index-snapshot.js';
import type { FtsTokenizer } from '../store/schema.js';
import { rankByContainment } from './containment-score.js';
import {
  buildFtsQuery,
  type FtsQuery,
  type FtsQueryOptions,
  type LexicalStrategy,
  TRIGRAM_LENGTH,
} from './fts-query.js';

/** One FTS5 match: bm25() is negative, lower is better. */
export interface FtsMatch {
  readonly chunkId: number;
  readonly bm25: number;
}

/** What the lexical leg reads from one index snapshot. */
export interface LexicalSource {
  readonly tokenizer: FtsTokenizer;
  /** Up to `limit` matches of the expression in rowid order, each with its weighted bm25(); no ranking. */
  matches(expression: string, limit: number): FtsMatch[];
  /** Up to `limit` chunk ids matching the expression, rowid order, no scores. */
  matchIds(expression: string, limit: number): number[];
  /** Up to `limit` chunks passing the filter whose title, heading or body contains `text` (any case). */
  substringMatches(text: string, limit: number): number[];
  texts(chunkIds: readonly number[]): ChunkText[];
  /** The request's vault and namespace filter. */
  accepts(chunkId: number): boolean;
}

/**
 * At most this many matches are enumerated before the query counts as
 * common (measured per match: bench/rag/search-latency.ts). Trigram doclists
 * carry positions of every 3-character window, so a match costs ~10× more.
 */
export const MATCH_CAP: Record<FtsTokenizer, number> = { trigram: 1_000, unicode61: 10_000 };

export type LexicalPath = 'none' | 'fts' | 'phrase' | 'substring' | 'rerank-dense';

export interface LexicalResult {
  /** Ranked chunk ids, best first, cut to `count`. */
  readonly chunkIds: readonly number[];
  /** How they were found (for tests and /search diagnostics). */
  readonly path: LexicalPath;
}

export function strategyFor(tokenizer: FtsTokenizer): LexicalStrategy {
  return tokenizer === 'trigram' ? 'phrase' : 'or-terms';
}

/** How the leg builds its FTS5 query over an index of `tokenizer`: a trigram index cannot match shorter terms. */
export function ftsQueryOptions(
  tokenizer: FtsTokenizer,
  strategy: LexicalStrategy = strategyFor(tokenizer),
): FtsQueryOptions {
  return { strategy, minTermLength: tokenizer === 'trigram' ? TRIGRAM_LENGTH : 1 };
}

/**
 * The BM25 leg, filters applied before the top-`count` cut (docs/retrieval.md#filters).
 *
 * Cost is bounded without ranking the whole table: matches are enumerated in
 * rowid order up to MATCH_CAP + 1. Up to the cap that is every match, ranked
 * exactly after the filter. Past it the query is common (a short word
 * matching thousands of chunks carries little lexical evidence); the leg then
 * re-ranks the dense leg's candidates, which already respect the filter, by
 * term frequency (`rankByContainment`).
 *
 * - OR of terms (unicode61): FTS5 `bm25()` with the column weights.
 * - Exact phrase (trigram): FTS5 finds the candidates (for several words, the
 *   AND of the two longest: matching a long trigram phrase reads every
 *   trigram's position list), the exact phrase is checked in the text, and the
 *   ranking is BM25 of that one phrase up to its IDF, which is the same for
 *   every chunk. FTS5's `bm25()` is not used here: it counts every match of
 *   the phrase for that IDF, so its cost grows with the table, not the cap.
 * - Under one trigram: a LIKE scan scoped to the filter, with the same cap.
 */
export function lexicalLeg(
  query: string,
  count: number,
  denseCandidates: readonly number[],
  source: LexicalSource,
  strategy: LexicalStrategy = strategyFor(source.tokenizer),
): LexicalResult {
  const fts = buildFtsQuery(query, ftsQueryOptions(source.tokenizer, strategy));
  if (fts.kind === 'empty') return { chunkIds: [], path: 'none' };
  const cap = MATCH_CAP[source.tokenizer];
  if (fts.kind === 'short') {
    const found = source.substringMatches(fts.text, cap + 1);
    if (found.length > cap) return rerankDense(fts, count, denseCandidates, source);
    return { chunkIds: rankByContainment([fts.text], source.texts(found)).slice(0, count), path: 'substring' };
  }
  if (strategy === 'phrase') {
    const candidates = source.matchIds(fts.narrowing ?? fts.expression, cap + 1);
    if (candidates.length > cap) return rerankDense(fts, count, denseCandidates, source);
    const texts = source.texts(candidates.filter((id) => source.accepts(id)));
    return { chunkIds: rankByContainment(fts.terms, texts).slice(0, count), path: 'phrase' };
  }
  const matches = source.matches(fts.expression, cap + 1);
  if (matches.length > cap) return rerankDense(fts, count, denseCandidates, source);
  const ranked = matches
    .filter((m) => source.accepts(m.chunkId))
    .sort((a, b) => a.bm25 - b.bm25 || a.chunkId - b.chunkId)
    .slice(0, count);
  return { chunkIds: ranked.map((m) => m.chunkId), path: 'fts' };
}

function rerankDense(
  fts: Exclude<FtsQuery, { kind: 'empty' }>,
  count: number,
  denseCandidates: readonly number[],
  source: LexicalSource,
): LexicalResult {
  const needles = fts.kind === 'short' ? [fts.text] : fts.terms;
  const ranked = rankByContainment(needles, source.texts(denseCandidates));
  return { chunkIds: ranked.slice(0, count), path: 'rerank-dense' };
}
