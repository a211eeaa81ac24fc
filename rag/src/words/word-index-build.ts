import { errorMessage } from '@notegate/kit';
import type Database from 'better-sqlite3';
import type { Fts5Mirror } from './fts5-mirror.js';
import { type Fts5Totals, readFts5Totals } from './fts5-totals.js';
import { MemoryWords } from './memory-words.js';
import { SqliteWords } from './sqlite-words.js';
import { differenceFromSqlite } from './word-index-check.js';
import type { WordPostings } from './word-postings.js';
import { readWordPostings, WORD_COLUMN_WEIGHTS, WORD_VOCABULARY_SQL } from './word-postings-reader.js';
import type { PostingRows } from './word-segment.js';

export type WordIndexBuild =
  | { readonly kind: 'built'; readonly postings: WordPostings; readonly totals: Fts5Totals }
  | { readonly kind: 'unavailable'; readonly reason: string };

/**
 * Makes the fts5vocab views the build reads through, in the connection's
 * temp schema (the only writes; call before the read transaction starts).
 */
export function prepareWordVocabulary(db: Database.Database): void {
  db.pragma('query_only = OFF');
  db.exec(WORD_VOCABULARY_SQL);
  db.pragma('query_only = ON');
}

/**
 * Reads the word table's postings in the state the connection reads (inside
 * its read transaction; `prepareWordVocabulary` first), in the order of
 * `rows`, then answers probe queries both from memory and in SQLite: any
 * difference, and the index is not used (docs/retrieval.md#lexical-leg).
 */
export function buildWordIndex(db: Database.Database, rows: PostingRows, mirror: Fts5Mirror): WordIndexBuild {
  try {
    const postings = readWordPostings(db, rows.chunkIds);
    const totals = readFts5Totals(db, WORD_COLUMN_WEIGHTS.length);
    const segment = { postings, rows, deleted: undefined, deletedPostings: undefined };
    const difference = differenceFromSqlite(new MemoryWords([segment], totals, mirror), new SqliteWords(db));
    if (difference !== undefined) return { kind: 'unavailable', reason: `it differs from SQLite on ${difference}` };
    return { kind: 'built', postings, totals };
  } catch (err) {
    return { kind: 'unavailable', reason: errorMessage(err) };
  }
}
