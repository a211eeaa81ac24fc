import Database from 'better-sqlite3';
import { RagError } from '../errors/rag-error.js';
import { isBusy } from './open-database.js';
import { preparePrivateFile } from './private-files.js';

export interface IndexLock {
  release(): void;
}

/**
 * Keeps two `index` runs off one index: an exclusive SQLite lock on a side
 * file (`<index>.lock`) held for the whole run. The operating system drops it
 * when the process dies, so a crashed run never leaves a stale lock behind.
 */
export function acquireIndexLock(indexPath: string): IndexLock {
  const lockPath = `${indexPath}.lock`;
  preparePrivateFile(lockPath);
  // No waiting: a second run is refused at once (ERR_INDEX_BUSY).
  const db = new Database(lockPath, { timeout: 0 });
  try {
    db.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    db.close();
    if (isBusy(err)) {
      throw new RagError(
        'ERR_INDEX_BUSY',
        `another 'notegate-rag index' run is updating ${indexPath} (it holds ${lockPath}); run again once it has finished`,
      );
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
