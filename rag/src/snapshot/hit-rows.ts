import type Database from 'better-sqlite3';
import { RagError } from '../errors/rag-error.js';
import { asRow, num, text } from '../store/rows.js';

/** What a search hit shows of a chunk and its file (docs/retrieval.md#post-search). */
export interface HitRow {
  readonly chunkId: number;
  readonly vault: string;
  readonly path: string;
  readonly namespace: string;
  readonly title: string;
  readonly heading: string;
  readonly lineStart: number;
  readonly lineEnd: number;
  readonly text: string;
}

/** The rows a hit shows, for the chunk ids in a JSON array (the one parameter); `readHitRows` reads its columns. */
export const HIT_ROWS_SQL = `SELECT c.id, f.vault, f.path, c.namespace, f.title, c.heading, c.line_start, c.line_end, c.body
  FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.id IN (SELECT value FROM json_each(?))`;

/**
 * The rows of `chunkIds`, in that order, read with `statement` (HIT_ROWS_SQL
 * prepared on the snapshot's connection); a missing one means the snapshot
 * is broken, never a shorter list.
 */
export function readHitRows(statement: Database.Statement, chunkIds: readonly number[]): HitRow[] {
  const byId = new Map<number, HitRow>();
  for (const value of statement.all(JSON.stringify(chunkIds))) {
    const row = asRow(value);
    const chunkId = num(row, 'id');
    byId.set(chunkId, {
      chunkId,
      vault: text(row, 'vault'),
      path: text(row, 'path'),
      namespace: text(row, 'namespace'),
      title: text(row, 'title'),
      heading: text(row, 'heading'),
      lineStart: num(row, 'line_start'),
      lineEnd: num(row, 'line_end'),
      text: text(row, 'body'),
    });
  }
  return chunkIds.map((id) => {
    const hit = byId.get(id);
    if (!hit) throw new RagError('ERR_INDEX_SCHEMA', `chunk ${id} is missing from the index snapshot`);
    return hit;
  });
}
