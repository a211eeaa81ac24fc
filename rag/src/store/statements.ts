import type Database from 'better-sqlite3';
import { FILE_ROW_COLUMNS } from './index-contents.js';

export type Statements = Record<StatementName, Database.Statement>;

type StatementName =
  | 'filesOfVault'
  | 'filesAt'
  | 'fileId'
  | 'touchFile'
  | 'insertFile'
  | 'updateFile'
  | 'deleteFile'
  | 'insertChunk'
  | 'insertVector'
  | 'deleteSomeChunksOfFile'
  | 'chunkCount';

/** The writer's statements, prepared once per connection. */
export function prepareStatements(db: Database.Database): Statements {
  return {
    filesOfVault: db.prepare(`SELECT ${FILE_ROW_COLUMNS} FROM files WHERE vault = ?`),
    filesAt: db.prepare(
      `SELECT ${FILE_ROW_COLUMNS} FROM files WHERE vault = ? AND path IN (SELECT value FROM json_each(?))`,
    ),
    fileId: db.prepare('SELECT id FROM files WHERE vault = ? AND path = ?'),
    touchFile: db.prepare('UPDATE files SET mtime_ms = ?, size_bytes = ? WHERE id = ?'),
    insertFile: db.prepare(
      `INSERT INTO files (vault, path, namespace, title, aliases, tags, mtime_ms, size_bytes,
         content_sha256, fingerprint, chunk_count, indexed_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    updateFile: db.prepare(
      `UPDATE files SET namespace = ?, title = ?, aliases = ?, tags = ?, mtime_ms = ?, size_bytes = ?,
         content_sha256 = ?, fingerprint = ?, chunk_count = ?, indexed_at_ms = ? WHERE id = ?`,
    ),
    deleteFile: db.prepare('DELETE FROM files WHERE id = ?'),
    insertChunk: db.prepare(
      `INSERT INTO chunks (file_id, vault, namespace, seq, title, heading, body, line_start, line_end, token_count)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    insertVector: db.prepare('INSERT INTO chunk_vectors (chunk_id, embedding) VALUES (?, ?)'),
    deleteSomeChunksOfFile: db.prepare(
      'DELETE FROM chunks WHERE id IN (SELECT id FROM chunks WHERE file_id = ? ORDER BY seq LIMIT ?)',
    ),
    chunkCount: db.prepare('SELECT count(*) FROM chunks'),
  };
}
