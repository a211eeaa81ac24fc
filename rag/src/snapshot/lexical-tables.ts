import type Database from 'better-sqlite3';
import { anyOf, termExpression } from '../lexical/fts-query.js';
import type { QueryTerm } from '../lexical/query-terms.js';
import { COLUMN_WEIGHTS } from '../store/fts-column-weights.js';
import { asRow, num } from '../store/rows.js';
import type { LexicalLayout } from '../store/schema.js';
import type { MemoryWords } from './memory-words.js';
import type { ChunkScope, RankedChunk, WordRanking } from './word-ranking.js';

/** Where the word tier's BM25 is computed (docs/retrieval.md#lexical-leg); /health reports it. */
export type WordScoring = 'memory' | 'sqlite';

/**
 * Document frequencies remembered per snapshot (its state never changes, so
 * neither do they); a bound keeps a stream of distinct queries from growing it.
 */
const MAX_CACHED_FREQUENCIES = 50_000;

/**
 * The full-text tables of one snapshot, ranked inside SQLite: `ORDER BY
 * bm25(...) LIMIT k` keeps a heap of k, and the scope is a join in the same
 * statement, so the filter applies before the cut (docs/retrieval.md#filters).
 * CROSS JOIN keeps the full-text table the outer loop: with a plain join the
 * planner may start from the vault index and run the MATCH once per chunk.
 */
export class LexicalTables {
  private readonly frequencies = new Map<string, number>();
  private readonly statements: {
    readonly count: Database.Statement;
    readonly words: Database.Statement;
    readonly wordsScoped: Database.Statement;
    readonly trigrams: Database.Statement | undefined;
    readonly trigramsScoped: Database.Statement | undefined;
  };

  /** The word tier in SQLite: every query term's count, and the OR of the terms ranked by bm25(). */
  private readonly sqlWords: WordRanking = {
    documentFrequency: (term) => this.documentFrequency(termExpression(term)),
    rank: (terms, scope, limit) => this.rankWords(anyOf(terms.map(termExpression)), scope, limit),
  };

  constructor(
    db: Database.Database,
    readonly layout: LexicalLayout,
    /** Rows of the full-text tables (one per chunk): N in FTS5's IDF. */
    readonly rowCount: number,
    /** The in-memory word index once it is ready for this snapshot's state (docs/retrieval.md#snapshots). */
    private readonly memory: () => MemoryWords | undefined = () => undefined,
  ) {
    const substrings = layout === 'words+trigram';
    this.statements = {
      count: db.prepare('SELECT count(*) FROM chunks_words WHERE chunks_words MATCH ?').pluck(),
      words: db.prepare(rankSql('chunks_words', false)),
      wordsScoped: db.prepare(rankSql('chunks_words', true)),
      trigrams: substrings ? db.prepare(rankSql('chunks_trigram', false)) : undefined,
      trigramsScoped: substrings ? db.prepare(rankSql('chunks_trigram', true)) : undefined,
    };
  }

  /** Where the word tier is ranked now. */
  get scoring(): WordScoring {
    return this.memory() ? 'memory' : 'sqlite';
  }

  /**
   * The word tier for these query terms: from memory once the in-memory index
   * is ready and FTS5 makes one token of every term, else in SQLite; both
   * give the same frequencies and the same ranking.
   */
  wordRanking(terms: readonly QueryTerm[]): WordRanking {
    return this.memory()?.wordRanking(terms) ?? this.sqlWords;
  }

  /** Chunks matching a word-table expression: what FTS5 counts for that term's IDF. */
  documentFrequency(expression: string): number {
    const cached = this.frequencies.get(expression);
    if (cached !== undefined) return cached;
    const count = Number(this.statements.count.get(expression));
    if (this.frequencies.size >= MAX_CACHED_FREQUENCIES) this.frequencies.clear();
    this.frequencies.set(expression, count);
    return count;
  }

  /** The best `limit` chunks in scope for a word-table expression. */
  rankWords(expression: string, scope: ChunkScope, limit: number): RankedChunk[] {
    return rank(unscoped(scope) ? this.statements.words : this.statements.wordsScoped, expression, scope, limit);
  }

  /** The same over the trigram table (substrings); nothing in the fallback layout. */
  rankSubstrings(expression: string, scope: ChunkScope, limit: number): RankedChunk[] {
    const statement = unscoped(scope) ? this.statements.trigrams : this.statements.trigramsScoped;
    return statement ? rank(statement, expression, scope, limit) : [];
  }
}

function unscoped(scope: ChunkScope): boolean {
  return scope.vaults === undefined && scope.namespaces === undefined;
}

function rankSql(table: string, scoped: boolean): string {
  const { title, heading, body } = COLUMN_WEIGHTS;
  const score = `bm25(${table}, ${title}, ${heading}, ${body})`;
  if (!scoped) {
    return `SELECT rowid AS id, ${score} AS score FROM ${table} WHERE ${table} MATCH @expression ORDER BY score LIMIT @limit`;
  }
  return `SELECT ${table}.rowid AS id, ${score} AS score FROM ${table} CROSS JOIN chunks c ON c.id = ${table}.rowid
    WHERE ${table} MATCH @expression
      AND (@vaults IS NULL OR c.vault IN (SELECT value FROM json_each(@vaults)))
      AND (@namespaces IS NULL OR c.namespace IN (SELECT value FROM json_each(@namespaces)))
    ORDER BY score LIMIT @limit`;
}

function rank(statement: Database.Statement, expression: string, scope: ChunkScope, limit: number): RankedChunk[] {
  const json = (list: readonly string[] | undefined) => (list === undefined ? null : JSON.stringify(list));
  const parameters = unscoped(scope)
    ? { expression, limit }
    : { expression, limit, vaults: json(scope.vaults), namespaces: json(scope.namespaces) };
  return statement.all(parameters).map((value) => {
    const row = asRow(value);
    return { chunkId: num(row, 'id'), bm25: num(row, 'score') };
  });
}
