import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { asRow, text } from '../src/store/rows.js';

export interface IndexCounts {
  readonly files: number;
  readonly chunks: number;
  readonly vectors: number;
}

/**
 * The invariants a crash must never break: every file row has exactly
 * `chunk_count` chunks, every chunk one vector of the right size (none in an
 * index without vectors, dimension 0), and no orphans.
 */
export function assertConsistent(indexPath: string, dimension: number): IndexCounts {
  const db = new Database(indexPath, { readonly: true });
  try {
    const mismatched = db
      .prepare(
        `SELECT f.path, f.chunk_count, (SELECT count(*) FROM chunks c WHERE c.file_id = f.id) AS actual
         FROM files f WHERE f.chunk_count != (SELECT count(*) FROM chunks c WHERE c.file_id = f.id)`,
      )
      .all();
    assert.deepEqual(mismatched, [], 'every file row has all its chunks');
    const count = (sql: string) => Number(db.prepare(sql).pluck().get());
    assert.equal(
      count('SELECT count(*) FROM chunks c LEFT JOIN chunk_vectors v ON v.chunk_id = c.id WHERE v.chunk_id IS NULL'),
      dimension === 0 ? count('SELECT count(*) FROM chunks') : 0,
      dimension === 0 ? 'no vectors at all' : 'every chunk has a vector',
    );
    assert.equal(
      count(`SELECT count(*) FROM chunk_vectors WHERE length(embedding) != ${dimension * 4}`),
      0,
      'vector sizes',
    );
    assert.equal(
      count('SELECT count(*) FROM chunk_vectors v LEFT JOIN chunks c ON c.id = v.chunk_id WHERE c.id IS NULL'),
      0,
      'no orphan vectors',
    );
    assert.equal(
      count('SELECT count(*) FROM chunks c LEFT JOIN files f ON f.id = c.file_id WHERE f.id IS NULL'),
      0,
      'no orphan chunks',
    );
    return {
      files: count('SELECT count(*) FROM files'),
      chunks: count('SELECT count(*) FROM chunks'),
      vectors: count('SELECT count(*) FROM chunk_vectors'),
    };
  } finally {
    db.close();
  }
}

/**
 * The full-text tables match the chunks: FTS5 'integrity-check' throws
 * SQLITE_CORRUPT_VTAB when an index is damaged (with rank 1, an
 * external-content table is also compared with the chunks), and the word
 * table holds exactly one row per chunk. 'integrity-check' is an INSERT
 * command, so it needs a writable connection; it changes nothing.
 */
export function assertFtsIntact(indexPath: string): void {
  const db = new Database(indexPath);
  try {
    const tables = db
      .prepare("SELECT name, sql FROM sqlite_master WHERE name IN ('chunks_words', 'chunks_trigram')")
      .all()
      .map((row) => ({ name: text(asRow(row), 'name'), sql: text(asRow(row), 'sql') }));
    assert.ok(
      tables.some((table) => table.name === 'chunks_words'),
      'the word table exists',
    );
    for (const { name, sql } of tables) {
      const againstContent = sql.includes("content = 'chunks'") ? 1 : 0;
      db.prepare(`INSERT INTO ${name} (${name}, rank) VALUES ('integrity-check', ?)`).run(againstContent);
    }
    assert.deepEqual(
      db.prepare('SELECT id FROM chunks ORDER BY id').pluck().all(),
      db.prepare('SELECT rowid FROM chunks_words ORDER BY rowid').pluck().all(),
      'one word-table row per chunk',
    );
  } finally {
    db.close();
  }
}
