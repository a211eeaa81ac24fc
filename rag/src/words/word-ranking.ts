import type { QueryTerm } from '../lexical/query-terms.js';
import type { RowRange } from '../vectors/vector-scan.js';
import type { PostingRows } from './word-segment.js';

/** One ranked full-text match: FTS5 `bm25()` with the column weights, lower is better. */
export interface RankedChunk {
  readonly chunkId: number;
  readonly bm25: number;
}

/** Which chunks a search may return: undefined means every vault, every namespace. */
export interface ChunkScope {
  readonly vaults: readonly string[] | undefined;
  readonly namespaces: readonly string[] | undefined;
  /**
   * A filter finer than vault and namespace (a tag, docs/retrieval.md#tags),
   * resolved by the snapshot for both back ends: only chunks of these files
   * (SQLite), which are these rows of each segment (memory; the vault and
   * namespace filter applied too). Absent: no such filter.
   */
  readonly narrowed?: {
    readonly fileIds: readonly number[];
    rangesIn(rows: PostingRows): readonly RowRange[];
  };
}

/** Where the word tier's BM25 is computed (docs/retrieval.md#lexical-leg): /health and each response say it. */
export type WordScoring = 'memory' | 'sqlite';

/**
 * The word tier of the lexical leg for one query's terms
 * (docs/retrieval.md#lexical-leg): each term's document frequency, and the
 * best chunks in scope for an OR of terms, ranked by FTS5's bm25() with the
 * column weights, ties by chunk id. Computed by SQLite or from memory, with
 * the same result.
 */
export interface WordRanking {
  readonly scoring: WordScoring;
  documentFrequency(term: QueryTerm): number;
  rank(terms: readonly QueryTerm[], scope: ChunkScope, limit: number): RankedChunk[];
}
