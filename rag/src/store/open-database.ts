import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

/** rag-lessons.md §18: index and serve share one file; waiting beats failing with SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 30_000;
const WAL_SWITCH_ATTEMPTS = 10;
const WAL_SWITCH_PAUSE_MS = 50;

export interface OpenOptions {
  readonly readonly?: boolean;
  readonly busyTimeoutMs?: number;
}

/**
 * Opens the index with WAL (readers never block the writer), a busy timeout,
 * and foreign keys on. Switching to WAL ignores the busy handler, so it is
 * retried a bounded number of times.
 */
export function openDatabase(file: string, options: OpenOptions = {}): Database.Database {
  if (!options.readonly) mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file, {
    readonly: options.readonly ?? false,
    fileMustExist: options.readonly ?? false,
    timeout: options.busyTimeoutMs ?? BUSY_TIMEOUT_MS,
  });
  try {
    if (!options.readonly) switchToWal(db);
    // WAL: NORMAL keeps every commit atomic and consistent; a power loss may drop the last commits, never corrupt.
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

function switchToWal(db: Database.Database): void {
  for (let attempt = 1; ; attempt += 1) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (err) {
      if (!isBusy(err) || attempt >= WAL_SWITCH_ATTEMPTS) throw err;
      pauseSync(WAL_SWITCH_PAUSE_MS * attempt);
    }
  }
}

export function isBusy(err: unknown): boolean {
  return err instanceof Error && 'code' in err && (err.code === 'SQLITE_BUSY' || err.code === 'SQLITE_LOCKED');
}

function pauseSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
