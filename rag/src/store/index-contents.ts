import { existsSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { RagError } from '../errors/rag-error.js';
import { type IndexMeta, readCheckedIndexMeta } from './index-meta.js';
import { openDatabase } from './open-database.js';
import { asRow, num, type Row, text } from './rows.js';

/** What the index knows about one file. */
export interface FileRow {
  readonly id: number;
  readonly path: string;
  readonly mtimeMs: number;
  readonly sizeBytes: number;
  readonly contentSha256: string;
  readonly fingerprint: string;
}

/** How many files and chunks the index holds of a vault. */
export interface VaultCounts {
  readonly vault: string;
  readonly files: number;
  readonly chunks: number;
}

/** What an index holds, read in one transaction without writing (`notegate-rag status`). */
export interface IndexContents {
  readonly meta: IndexMeta;
  readonly vaults: readonly VaultCounts[];
  /** Per vault, its files by path: what an index run compares with the folder. */
  readonly files: ReadonlyMap<string, ReadonlyMap<string, FileRow>>;
}

/** The columns of `files` a FileRow is read from. */
export const FILE_ROW_COLUMNS = 'id, path, mtime_ms, size_bytes, content_sha256, fingerprint';

export function fileRowOf(row: Row): FileRow {
  return {
    id: num(row, 'id'),
    path: text(row, 'path'),
    mtimeMs: num(row, 'mtime_ms'),
    sizeBytes: num(row, 'size_bytes'),
    contentSha256: text(row, 'content_sha256'),
    fingerprint: text(row, 'fingerprint'),
  };
}

/**
 * Files per vault, in vault order. The `(vault, path)` index answers it alone, without reading
 * the file rows (a tenth of `vaultCounts`' time at 100k files): the chunk counts of a loaded index
 * come from its segments (docs/retrieval.md#writes-at-scale).
 */
export function vaultFileCounts(db: Database.Database): Map<string, number> {
  const counts = new Map<string, number>();
  for (const value of db.prepare('SELECT vault, count(*) AS files FROM files GROUP BY vault ORDER BY vault').all()) {
    const row = asRow(value);
    counts.set(text(row, 'vault'), num(row, 'files'));
  }
  return counts;
}

export function vaultCounts(db: Database.Database): VaultCounts[] {
  return db
    .prepare(
      'SELECT vault, count(*) AS files, coalesce(sum(chunk_count), 0) AS chunks FROM files GROUP BY vault ORDER BY vault',
    )
    .all()
    .map((value) => {
      const row = asRow(value);
      return { vault: text(row, 'vault'), files: num(row, 'files'), chunks: num(row, 'chunks') };
    });
}

/**
 * Reads an index as a reader (docs/retrieval.md#index-format: it never writes, and shares the file with a
 * running `index`): metadata, counts and file rows from one snapshot. A missing file is ERR_INDEX_MISSING,
 * anything but an index of this format ERR_INDEX_SCHEMA.
 */
export function readIndexContents(file: string): IndexContents {
  if (!existsSync(file)) throw new RagError('ERR_INDEX_MISSING', `no index at ${file}; run 'notegate-rag index'`);
  const db = openDatabase(file, { reader: true });
  try {
    return db.transaction(() => {
      const meta = readCheckedIndexMeta(db, file);
      const files = new Map<string, Map<string, FileRow>>();
      for (const value of db.prepare(`SELECT vault, ${FILE_ROW_COLUMNS} FROM files`).all()) {
        const row = asRow(value);
        const vault = text(row, 'vault');
        const rows = files.get(vault) ?? new Map<string, FileRow>();
        const fileRow = fileRowOf(row);
        rows.set(fileRow.path, fileRow);
        files.set(vault, rows);
      }
      return { meta, vaults: vaultCounts(db), files };
    })();
  } finally {
    db.close();
  }
}
