import { errorMessage } from '@notegate/kit';
import { readIndexMeta } from '../store/index-meta.js';
import { openDatabase } from '../store/open-database.js';
import type { Fts5Mirror } from './fts5-mirror.js';
import { MemoryWords, type PostingRows } from './memory-words.js';
import { SqliteWords } from './sqlite-words.js';
import { differenceFromSqlite } from './word-index-check.js';
import type { WordPostingsParts } from './word-postings.js';
import { readWordPostings, WORD_VOCABULARY_SQL } from './word-postings-reader.js';

/** What the build of one vectors generation's word index is given (docs/retrieval.md#snapshots). */
export interface WordIndexRequest {
  readonly file: string;
  /** The generation the snapshot holds: the build reads only an index still at it. */
  readonly generation: string;
  readonly rows: PostingRows;
}

export type WordIndexReply =
  | { readonly kind: 'built'; readonly parts: WordPostingsParts }
  | { readonly kind: 'unavailable'; readonly reason: string };

/**
 * Reads the word table's postings on a connection of its own, in a read
 * transaction that must still hold the requested generation (the same chunks
 * and full-text rows as the snapshot), then answers probe queries both from
 * memory and in SQLite: any difference, and the index is not used.
 */
export function buildWordIndex(request: WordIndexRequest, mirror: Fts5Mirror): WordIndexReply {
  const db = openDatabase(request.file, { reader: true });
  try {
    // The fts5vocab views are the only writes, to this connection's own temp schema.
    db.pragma('query_only = OFF');
    db.exec(WORD_VOCABULARY_SQL);
    db.pragma('query_only = ON');
    db.exec('BEGIN');
    const meta = readIndexMeta(db);
    if (meta.vectorsGeneration !== request.generation) {
      return { kind: 'unavailable', reason: 'the index changed before its word index was read' };
    }
    const postings = readWordPostings(db, request.rows.chunkIds);
    const memory = new MemoryWords(postings, request.rows, mirror);
    const difference = differenceFromSqlite(memory, new SqliteWords(db));
    if (difference !== undefined) return { kind: 'unavailable', reason: `it differs from SQLite on ${difference}` };
    const { terms, offsets, rows, frequencies, lengths, totals } = postings;
    return { kind: 'built', parts: { terms, offsets, rows, frequencies, lengths, totals } };
  } catch (err) {
    return { kind: 'unavailable', reason: errorMessage(err) };
  } finally {
    db.close();
  }
}

/** The buffers a built reply hands over instead of copying. */
export function transferablesOf(reply: WordIndexReply): ArrayBuffer[] {
  if (reply.kind !== 'built') return [];
  const { offsets, rows, frequencies, lengths } = reply.parts;
  return [offsets.buffer, rows.buffer, frequencies.buffer, lengths.buffer].filter(
    (buffer): buffer is ArrayBuffer => buffer instanceof ArrayBuffer,
  );
}
