import Database from 'better-sqlite3';
import { preparePrivateFile } from './private-files.js';

/** docs/retrieval.md#index-format: index and serve share one file; waiting beats failing with SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 30_000;
const WAL_SWITCH_ATTEMPTS = 10;
const WAL_SWITCH_PAUSE_MS = 50;

export interface OpenOptions {
  readonly readonly?: boolean;
  /**
   * A reader of an existing file that never writes (the search server): it
   * must exist, its journal mode is left as the writer set it (a foreign
   * database is not converted to WAL), and `query_only` refuses any write.
   * Unlike `readonly`, it can share the WAL index (-shm) with the writer.
   */
  readonly reader?: boolean;
}

/**
 * Opens the index with WAL (readers never block the writer), a busy timeout,
 * and foreign keys on. Switching to WAL ignores the busy handler, so it is
 * retried a bounded number of times.
 */
export function openDatabase(file: string, options: OpenOptions = {}): Database.Database {
  const writer = !options.readonly && !options.reader;
  if (writer) preparePrivateFile(file);
  const db = new Database(file, {
    readonly: options.readonly ?? false,
    fileMustExist: !writer,
    timeout: BUSY_TIMEOUT_MS,
  });
  try {
    if (writer) switchToWal(db);
    if (options.reader) db.pragma('query_only = ON');
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
