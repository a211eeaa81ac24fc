import type Database from 'better-sqlite3';
import { anyOf, termExpression } from '../lexical/fts-query.js';
import { Fts5Table } from './fts5-table.js';
import type { ChunkScope, RankedChunk, WordRanking } from './word-ranking.js';

/**
 * Document frequencies remembered per connection's state (a snapshot's never
 * changes, so neither do they); a bound keeps a stream of distinct queries
 * from growing it.
 */
const MAX_CACHED_FREQUENCIES = 50_000;

/**
 * The word table ranked in SQLite: the back end of the word tier that needs
 * nothing in memory (docs/retrieval.md#lexical-leg), and the reference the
 * in-memory word index is checked against before it is used.
 */
export class SqliteWords {
  readonly #frequencies = new Map<string, number>();
  readonly #count: Database.Statement;
  readonly #table: Fts5Table;

  /** The word tier for any query's terms: each term's count, and the OR of the terms ranked by bm25(). */
  readonly ranking: WordRanking = {
    scoring: 'sqlite',
    documentFrequency: (term) => this.documentFrequency(termExpression(term)),
    rank: (terms, scope, limit) => this.rank(anyOf(terms.map(termExpression)), scope, limit),
  };

  constructor(db: Database.Database) {
    this.#count = db.prepare('SELECT count(*) FROM chunks_words WHERE chunks_words MATCH ?').pluck();
    this.#table = new Fts5Table(db, 'chunks_words');
  }

  /** Chunks matching a word-table expression: what FTS5 counts for that term's IDF. */
  documentFrequency(expression: string): number {
    const cached = this.#frequencies.get(expression);
    if (cached !== undefined) return cached;
    const count = Number(this.#count.get(expression));
    if (this.#frequencies.size >= MAX_CACHED_FREQUENCIES) this.#frequencies.clear();
    this.#frequencies.set(expression, count);
    return count;
  }

  /** The best `limit` chunks in scope for a word-table expression. */
  rank(expression: string, scope: ChunkScope, limit: number): RankedChunk[] {
    return this.#table.rank(expression, scope, limit);
  }
}
