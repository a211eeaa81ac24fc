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

  constructor(db: Database.Database, table: 'chunks_words' | 'chunks_trigram') {
    this.#everywhere = db.prepare(rankSql(table, false));
    this.#scoped = db.prepare(rankSql(table, true));
  }

  /** The best `limit` chunks in scope for a MATCH expression of this table. */
  rank(expression: string, scope: ChunkScope, limit: number): RankedChunk[] {
    const json = (list: readonly string[] | undefined) => (list === undefined ? null : JSON.stringify(list));
    const everywhere = scope.vaults === undefined && scope.namespaces === undefined && scope.narrowed === undefined;
    const rows = everywhere
      ? this.#everywhere.all({ expression, limit })
      : this.#scoped.all({
          expression,
          limit,
          vaults: json(scope.vaults),
          namespaces: json(scope.namespaces),
          files: scope.narrowed === undefined ? null : JSON.stringify(scope.narrowed.fileIds),
        });
    return rows.map((value) => {
      const row = asRow(value);
      return { chunkId: num(row, 'id'), bm25: num(row, 'score') };
    });
  }
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
      AND (@files IS NULL OR c.file_id IN (SELECT value FROM json_each(@files)))
    ORDER BY score LIMIT @limit`;
}
