import type { QueryTerm } from '../lexical/query-terms.js';
import type { VectorMatrix } from '../store/load-vectors.js';
import { rangesFor } from '../vectors/vector-scan.js';
import { Bm25Ranking } from './bm25-ranking.js';
import type { Fts5Mirror } from './fts5-mirror.js';
import type { TermRange, WordPostings } from './word-postings.js';
import type { ChunkScope, RankedChunk, WordRanking } from './word-ranking.js';

/** The rows of the postings: the vector matrix's order, chunk ids and (vault, namespace) groups. */
export type PostingRows = Pick<VectorMatrix, 'chunkIds' | 'partitions'>;

const NO_TERMS: TermRange = { first: 0, end: 0 };

/**
 * The word tier ranked from the postings in memory (docs/retrieval.md#lexical-leg),
 * with the result of `ORDER BY bm25(chunks_words, 3, 2, 1) LIMIT k`: the query's
 * terms are tokenized by FTS5 itself, each one is an FTS5 phrase (two query terms
 * that stem alike count twice, as in SQLite), the filter applies before the cut.
 */
export class MemoryWords {
  private readonly bm25: Bm25Ranking;

  constructor(
    readonly postings: WordPostings,
    private readonly rows: PostingRows,
    private readonly mirror: Fts5Mirror,
  ) {
    this.bm25 = new Bm25Ranking(postings, (x) => mirror.naturalLog(x));
  }

  /**
   * The ranking of these terms; undefined when FTS5 makes several tokens of
   * one of them (a phrase, which needs positions: where JavaScript's and
   * SQLite's Unicode tables class a character differently), so that the
   * caller ranks that query in SQLite.
   */
  wordRanking(terms: readonly QueryTerm[]): WordRanking | undefined {
    const tokens = this.mirror.tokens(terms.map((term) => term.text));
    const ranges = new Map<QueryTerm, TermRange>();
    for (const [i, term] of terms.entries()) {
      const found = tokens[i] ?? [];
      if (found.length > 1) return undefined;
      const token = found[0];
      ranges.set(term, token === undefined ? NO_TERMS : this.postings.range(token, term.prefix));
    }
    const rangeOf = (term: QueryTerm): TermRange => {
      const range = ranges.get(term);
      if (range === undefined) throw new Error(`term ${term.text} is not one of the query's`);
      return range;
    };
    return {
      documentFrequency: (term) => this.postings.documentFrequency(rangeOf(term)),
      rank: (chosen, scope, limit) => this.rank(chosen.map(rangeOf), scope, limit),
    };
  }

  /** FTS5's tokens of each text. */
  tokensOf(texts: readonly string[]): (readonly string[])[] {
    return this.mirror.tokens(texts);
  }

  private rank(phrases: readonly TermRange[], scope: ChunkScope, limit: number): RankedChunk[] {
    const ranges = scope.narrowed?.rows ?? rangesFor(this.rows, scope.vaults, scope.namespaces);
    return this.bm25
      .rank(phrases, ranges, this.rows.chunkIds, limit)
      .map(({ chunkId, score }) => ({ chunkId, bm25: -score }));
  }
}
