import type Database from 'better-sqlite3';
import { COLUMN_WEIGHTS } from '../store/fts-column-weights.js';
import { asRow, num } from '../store/rows.js';
import type { ChunkScope, RankedChunk } from './word-ranking.js';

/**
 * One full-text table of the index, ranked inside SQLite: `ORDER BY
 * bm25(...) LIMIT k` keeps a heap of k, and the scope is a join in the same
 * statement, so the filter applies before the cut (docs/retrieval.md#filters).
 * CROSS JOIN keeps the full-text table the outer loop: with a plain join the
 * planner may start from the vault index and run the MATCH once per chunk.
 */
export class Fts5Table {
  readonly #everywhere: Database.Statement;
  readonly #scoped: Database.Statement;
  readonly #anyEverywhere: Database.Statement;
  readonly #anyScoped: Database.Statement;

  constructor(db: Database.Database, table: 'chunks_words' | 'chunks_trigram') {
    this.#everywhere = db.prepare(matchSql(table, false, true));
    this.#scoped = db.prepare(matchSql(table, true, true));
    this.#anyEverywhere = db.prepare(matchSql(table, false, false));
    this.#anyScoped = db.prepare(matchSql(table, true, false));
  }

  /** The best `limit` chunks in scope for a MATCH expression of this table. */
  rank(expression: string, scope: ChunkScope, limit: number): RankedChunk[] {
    return this.#run(this.#everywhere, this.#scoped, expression, scope, limit).map((value) => {
      const row = asRow(value);
      return { chunkId: num(row, 'id'), bm25: num(row, 'score') };
    });
  }

  /** Whether a chunk in scope matches: the first match in rowid order, no ranking (a common match costs no more). */
  holds(expression: string, scope: ChunkScope): boolean {
    return this.#run(this.#anyEverywhere, this.#anyScoped, expression, scope, 1).length > 0;
  }

  #run(
    everywhere: Database.Statement,
    scoped: Database.Statement,
    expression: string,
    scope: ChunkScope,
    limit: number,
  ): unknown[] {
    const json = (list: readonly string[] | undefined) => (list === undefined ? null : JSON.stringify(list));
    if (scope.vaults === undefined && scope.namespaces === undefined && scope.narrowed === undefined) {
      return everywhere.all({ expression, limit });
    }
    return scoped.all({
      expression,
      limit,
      vaults: json(scope.vaults),
      namespaces: json(scope.namespaces),
      files: scope.narrowed === undefined ? null : JSON.stringify(scope.narrowed.fileIds),
    });
  }
}

function matchSql(table: string, scoped: boolean, ranked: boolean): string {
  const { title, heading, body } = COLUMN_WEIGHTS;
  const score = ranked ? `bm25(${table}, ${title}, ${heading}, ${body})` : '0';
  const order = ranked ? 'ORDER BY score' : '';
  if (!scoped) {
    return `SELECT rowid AS id, ${score} AS score FROM ${table} WHERE ${table} MATCH @expression ${order} LIMIT @limit`;
  }
  return `SELECT ${table}.rowid AS id, ${score} AS score FROM ${table} CROSS JOIN chunks c ON c.id = ${table}.rowid
    WHERE ${table} MATCH @expression
      AND (@vaults IS NULL OR c.vault IN (SELECT value FROM json_each(@vaults)))
      AND (@namespaces IS NULL OR c.namespace IN (SELECT value FROM json_each(@namespaces)))
      AND (@files IS NULL OR c.file_id IN (SELECT value FROM json_each(@files)))
    ${order} LIMIT @limit`;
}
