import type Database from 'better-sqlite3';
import { RagError } from '../errors/rag-error.js';
import { META_KEYS, readMetaValues, writeMeta } from './index-meta.js';

/**
 * Entries the writer keeps at least. A reader further behind than the log
 * reaches loads the index whole (docs/retrieval.md#index-format); with at
 * least as many entries as the index has chunks, that costs about what
 * applying the missed changes one by one would.
 */
export const CHANGE_LOG_MIN_ENTRIES = 100_000;

/** Where the change log stands in one state of the index: which log, and its last sequence number. */
export interface LogPosition {
  readonly logId: string;
  /** The last sequence number written (0 before any change). */
  readonly seq: number;
}

/** One entry: a chunk added to or removed from the index. */
export interface ChunkChange {
  readonly seq: number;
  readonly chunkId: number;
  readonly added: boolean;
}

/** The position of the state the connection reads (inside a read transaction: the snapshot's). */
export function readLogPosition(db: Database.Database): LogPosition {
  const logId = readMetaValues(db).get(META_KEYS.changeLogId);
  if (logId === undefined) throw new RagError('ERR_INDEX_SCHEMA', 'the index names no change log; rebuild it');
  return { logId, seq: lastSeq(db) };
}

/**
 * Every change after `seq`, in commit order; undefined when the writer has
 * pruned entries after `seq` (the reader is too far behind).
 */
export function readChangesSince(db: Database.Database, seq: number): ChunkChange[] | undefined {
  if (prunedThrough(db) > seq) return undefined;
  return db
    .prepare('SELECT seq, chunk_id, added FROM chunk_changes WHERE seq > ? ORDER BY seq')
    .raw()
    .all(seq)
    .map((value) => {
      const [entry, chunkId, added] = value as [number, number, number];
      return { seq: entry, chunkId, added: added === 1 };
    });
}

/**
 * Drops the oldest entries once the log holds more than `keep` of them (the
 * writer, inside its transaction); the meta table says up to where, so a
 * reader behind that point knows it cannot follow the log.
 */
export function pruneChangeLog(db: Database.Database, chunkCount: () => number): void {
  const last = lastSeq(db);
  const pruned = prunedThrough(db);
  if (last - pruned <= CHANGE_LOG_MIN_ENTRIES) return;
  const through = last - Math.max(CHANGE_LOG_MIN_ENTRIES, chunkCount());
  if (through <= pruned) return;
  db.prepare('DELETE FROM chunk_changes WHERE seq <= ?').run(through);
  writeMeta(db, { [META_KEYS.changeLogPrunedThrough]: through });
}

function lastSeq(db: Database.Database): number {
  const seq = db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'chunk_changes'").pluck().get();
  return seq === undefined ? 0 : Number(seq);
}

function prunedThrough(db: Database.Database): number {
  return Number(readMetaValues(db).get(META_KEYS.changeLogPrunedThrough) ?? 0);
}
