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

/** The note of each chunk, for the chunk ids in a JSON array. */
export const NOTE_OF_CHUNKS_SQL = 'SELECT id, file_id FROM chunks WHERE id IN (SELECT value FROM json_each(?))';

/** Every chunk of the notes of the chunk ids in a JSON array, in the order of the note. */
export const NOTE_CHUNKS_SQL = `SELECT b.id AS chunk, c.line_start, c.line_end, c.body
  FROM chunks b JOIN chunks c ON c.file_id = b.file_id WHERE b.id IN (SELECT value FROM json_each(?))
  ORDER BY b.id, c.seq`;

/**
 * The rows of `chunkIds` as whole notes (docs/retrieval.md#post-search, `files`):
 * each chunk's row, with the line range and text of every chunk of its note
 * (its chunks in order, a blank line between two).
 */
export function readNoteRows(
  statements: { readonly hits: Database.Statement; readonly notes: Database.Statement },
  chunkIds: readonly number[],
): HitRow[] {
  const parts = new Map<number, { lineStart: number; lineEnd: number; texts: string[] }>();
  for (const value of statements.notes.all(JSON.stringify(chunkIds))) {
    const row = asRow(value);
    const chunk = num(row, 'chunk');
    const part = parts.get(chunk) ?? { lineStart: num(row, 'line_start'), lineEnd: 0, texts: [] };
    part.lineEnd = num(row, 'line_end');
    part.texts.push(text(row, 'body'));
    parts.set(chunk, part);
  }
  return readHitRows(statements.hits, chunkIds).map((hit) => {
    const note = parts.get(hit.chunkId);
    if (!note) throw new RagError('ERR_INDEX_SCHEMA', `the note of chunk ${hit.chunkId} is missing from the snapshot`);
    const body = note.texts.filter((part) => part !== '').join('\n\n');
    return { ...hit, lineStart: note.lineStart, lineEnd: note.lineEnd, text: body };
  });
}
