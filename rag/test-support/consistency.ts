import assert from 'node:assert/strict';
import Database from 'better-sqlite3';

export interface IndexCounts {
  readonly files: number;
  readonly chunks: number;
  readonly vectors: number;
}

/**
 * The invariants a crash must never break: every file row has exactly
 * `chunk_count` chunks, every chunk one vector of the right size, and the FTS
 * index matches its content table.
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
      0,
      'every chunk has a vector',
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
 * FTS5 'integrity-check' (with rank 1: against the content table) throws
 * SQLITE_CORRUPT_VTAB when the index and the chunks differ. It is an INSERT
 * command, so it needs a writable connection; it changes nothing.
 */
export function assertFtsIntact(indexPath: string): void {
  const db = new Database(indexPath);
  try {
    db.prepare("INSERT INTO chunks_fts (chunks_fts, rank) VALUES ('integrity-check', 1)").run();
  } finally {
    db.close();
  }
}
