import { chmodSync, closeSync, constants, fchmodSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import { RagError } from '../errors/rag-error.js';

/** docs/retrieval.md#index-format: the index holds the full text of every note, so only its owner may read it. */
const INDEX_FILE_MODE = 0o600;
const INDEX_DIR_MODE = 0o700;
/** What SQLite keeps beside a database in WAL mode (and in rollback mode, the journal). */
const SIDE_FILE_SUFFIXES = ['-wal', '-shm', '-journal'] as const;

/**
 * Makes `file` private before SQLite opens it (docs/retrieval.md#index-format): a missing directory is
 * created 0700, a missing file is created empty and 0600 (SQLite takes an empty file as a new
 * database), and an existing file, with the side files SQLite keeps beside it, is tightened to 0600 on
 * its own descriptor. SQLite creates `-wal`, `-shm` and `-journal` with the mode of the database file,
 * so they are 0600 from their first instant too. An existing directory is left as it is: it may be the
 * repository itself.
 */
export function preparePrivateFile(file: string): void {
  try {
    mkdirSync(path.dirname(file), { recursive: true, mode: INDEX_DIR_MODE });
    const fd = openSync(file, constants.O_RDONLY | constants.O_CREAT, INDEX_FILE_MODE);
    try {
      fchmodSync(fd, INDEX_FILE_MODE);
    } finally {
      closeSync(fd);
    }
    for (const suffix of SIDE_FILE_SUFFIXES) tightenIfPresent(`${file}${suffix}`);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new RagError('ERR_INDEX_PERMISSIONS', `cannot make ${file} private (owner-only): ${code}`);
  }
}

function tightenIfPresent(file: string): void {
  try {
    chmodSync(file, INDEX_FILE_MODE);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
