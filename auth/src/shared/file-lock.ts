import { closeSync, constants, fchmodSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';

/** The lock file holds nothing, but it sits beside secrets: owner-only, as they are. */
const LOCK_FILE_MODE = 0o600;
const RETRY_INTERVAL_MS = 25;

/** A lock held by this process; release it once. */
export interface FileLock {
  release(): void;
}

/** Another process held the lock for the whole wait. */
export class FileLockBusyError extends Error {
  constructor(lockPath: string, waitMs: number) {
    super(`${lockPath} stayed locked by another process for ${waitMs / 1000} s`);
    this.name = 'FileLockBusyError';
  }
}

/**
 * An exclusive lock between processes, and between callers of one process: a write transaction
 * (BEGIN EXCLUSIVE) on the SQLite database `lockPath`, created empty and 0600 when missing. SQLite's
 * lock is the operating system's, so a holder that dies, even by SIGKILL, leaves no stale lock. A lock
 * held elsewhere is asked for again every 25 ms, without blocking the event loop, for up to `waitMs`.
 */
export async function acquireFileLock(lockPath: string, waitMs: number): Promise<FileLock> {
  const deadlineMs = Date.now() + waitMs;
  for (;;) {
    const lock = tryLock(lockPath);
    if (lock !== undefined) return lock;
    if (Date.now() >= deadlineMs) throw new FileLockBusyError(lockPath, waitMs);
    await new Promise((resolve) => setTimeout(resolve, RETRY_INTERVAL_MS));
  }
}

function tryLock(lockPath: string): FileLock | undefined {
  const fd = openSync(lockPath, constants.O_RDONLY | constants.O_CREAT | constants.O_NOFOLLOW, LOCK_FILE_MODE);
  try {
    fchmodSync(fd, LOCK_FILE_MODE);
  } finally {
    closeSync(fd);
  }
  const db = new Database(lockPath, { timeout: 0 });
  try {
    db.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    db.close();
    if (err instanceof Database.SqliteError && (err.code === 'SQLITE_BUSY' || err.code === 'SQLITE_LOCKED')) {
      return undefined;
    }
    throw err;
  }
  return {
    release: () => {
      db.exec('ROLLBACK');
      db.close();
    },
  };
}
