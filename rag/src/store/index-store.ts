import { runSteps, type Steps } from '@notegate/kit';
import type Database from 'better-sqlite3';
import { RagError } from '../errors/rag-error.js';
import { pruneChangeLog } from './change-log.js';
import { type FileRow, fileRowOf } from './index-contents.js';
import { type IndexMeta, META_KEYS, readIndexMeta, readMetaValues, writeMeta } from './index-meta.js';
import { openDatabase } from './open-database.js';
import { type OpenIndexOptions, prepareSchema } from './prepare-schema.js';
import { asRow, num, text } from './rows.js';
import { prepareStatements, type Statements } from './statements.js';
import { encodeVector } from './vector-codec.js';
import type { WalCheckpoints } from './wal-checkpointer.js';
import { wordTableColumns } from './word-table-text.js';

export interface FileRecord {
  readonly vault: string;
  readonly path: string;
  readonly namespace: string;
  readonly title: string;
  readonly aliases: readonly string[];
  readonly tags: readonly string[];
  readonly mtimeMs: number;
  readonly sizeBytes: number;
  readonly contentSha256: string;
  readonly fingerprint: string;
}

export interface StoredChunk {
  readonly seq: number;
  readonly heading: string;
  readonly lineStart: number;
  readonly lineEnd: number;
  readonly text: string;
  readonly tokenCount: number;
  /** Empty in an index without vectors (`embed_model: none`). */
  readonly vector: Float32Array;
}

export interface IndexStoreOptions extends OpenIndexOptions {
  /**
   * Checkpoints asked of these after each commit instead of SQLite's own inside the commit, which
   * copies every page written since the last one on the writer's thread (docs/retrieval.md#index-runs).
   */
  readonly walCheckpoints?: WalCheckpoints;
}

/** Ours: chunks deleted in one step of a change; each takes its full-text and vector rows along. */
const DELETE_CHUNKS_AT_ONCE = 64;

/** The writer's view of the index file. Every change of one file is one transaction. */
export class IndexStore {
  private readonly statements: Statements;
  /** The full layout's word table is written here (its text is rewritten); the fallback's by trigger. */
  private readonly insertWords: Database.Statement | undefined;

  private constructor(
    private readonly db: Database.Database,
    private readonly options: IndexStoreOptions,
  ) {
    this.statements = prepareStatements(db);
    this.insertWords =
      readIndexMeta(db).lexicalLayout === 'words+trigram'
        ? db.prepare('INSERT INTO chunks_words (rowid, title, heading, body) VALUES (?, ?, ?, ?)')
        : undefined;
  }

  /**
   * Opens (creating when new) and checks the schema version and the model
   * guard inside `BEGIN IMMEDIATE`, so two openers never both create tables.
   * A foreign SQLite file is never touched, not even by `rebuild`.
   */
  static open(file: string, options: IndexStoreOptions): IndexStore {
    const db = openDatabase(file);
    try {
      if (options.walCheckpoints) db.pragma('wal_autocheckpoint = 0');
      db.transaction(() => prepareSchema(db, file, options)).immediate();
      return new IndexStore(db, options);
    } catch (err) {
      db.close();
      throw err;
    }
  }

  get meta(): IndexMeta {
    return readIndexMeta(this.db);
  }

  /** What the index knows about the files of a vault; with `paths`, about those files only. */
  fileRows(vault: string, paths?: readonly string[]): Map<string, FileRow> {
    const found =
      paths === undefined
        ? this.statements.filesOfVault.all(vault)
        : this.statements.filesAt.all(vault, JSON.stringify(paths));
    const rows = found.map((row) => fileRowOf(asRow(row)));
    return new Map(rows.map((row) => [row.path, row]));
  }

  vaultsInIndex(): string[] {
    return this.db
      .prepare('SELECT DISTINCT vault FROM files ORDER BY vault')
      .all()
      .map((row) => text(asRow(row), 'vault'));
  }

  fileIdsOfVault(vault: string): number[] {
    return this.db
      .prepare('SELECT id FROM files WHERE vault = ?')
      .all(vault)
      .map((row) => num(asRow(row), 'id'));
  }

  /** Content unchanged: only the stored mtime and size move (docs/retrieval.md#index-runs). */
  touchFiles(updates: readonly { id: number; mtimeMs: number; sizeBytes: number }[]): void {
    if (updates.length === 0) return;
    this.db
      .transaction(() => {
        for (const u of updates) this.statements.touchFile.run(u.mtimeMs, u.sizeBytes, u.id);
      })
      .immediate();
    this.options.walCheckpoints?.request();
  }

  /** Replaces a file's row, chunks, full-text rows and vectors in one transaction: all or nothing. */
  replaceFile(record: FileRecord, chunks: readonly StoredChunk[], indexedAtMs: number): void {
    runSteps(this.replaceFileSteps(record, chunks, indexedAtMs));
  }

  /** `replaceFile` as steps (see `changeSteps`), a chunk each. */
  *replaceFileSteps(record: FileRecord, chunks: readonly StoredChunk[], indexedAtMs: number): Steps<void> {
    const dimension = this.options.model.dimension;
    for (const chunk of chunks) {
      if (chunk.vector.length !== dimension) {
        throw new RagError(
          'ERR_EMBEDDING',
          `vector of ${chunk.vector.length} dimensions, the index holds ${dimension}`,
        );
      }
    }
    yield* this.changeSteps(this.writeFileSteps(record, chunks, indexedAtMs));
  }

  removeFiles(ids: readonly number[]): void {
    runSteps(this.removeFilesSteps(ids));
  }

  /** Removes files with their chunks, full-text rows and vectors in one transaction, as steps (see `changeSteps`). */
  *removeFilesSteps(ids: readonly number[]): Steps<void> {
    if (ids.length === 0) return;
    yield* this.changeSteps(this.deleteFilesSteps(ids));
  }

  /**
   * One transaction that changes chunks, as steps: an index run gives the event loop a turn between
   * them (docs/retrieval.md#index-runs). Readers keep seeing the index as it was until the commit
   * (WAL), and only the run that holds the index lock writes, so nothing waits on the open
   * transaction. Ends with the commit, or a rollback when a step throws or the steps are dropped.
   */
  private *changeSteps(change: Steps<void>): Steps<void> {
    this.db.exec('BEGIN IMMEDIATE');
    let committed = false;
    try {
      yield* change;
      this.db.exec('COMMIT');
      committed = true;
    } finally {
      if (!committed && this.db.inTransaction) this.db.exec('ROLLBACK');
    }
    this.options.walCheckpoints?.request();
  }

  private *writeFileSteps(record: FileRecord, chunks: readonly StoredChunk[], indexedAtMs: number): Steps<void> {
    const fileId = yield* this.upsertFileSteps(record, chunks.length, indexedAtMs);
    // docs/retrieval.md#tags: a note is found by its tags as by its title and aliases.
    const titleField = [record.title, ...record.aliases, ...record.tags].join('\n');
    for (const chunk of chunks) {
      yield;
      const chunkId = this.statements.insertChunk.run(
        fileId,
        record.vault,
        record.namespace,
        chunk.seq,
        titleField,
        chunk.heading,
        chunk.text,
        chunk.lineStart,
        chunk.lineEnd,
        chunk.tokenCount,
      ).lastInsertRowid;
      this.insertWords?.run(
        chunkId,
        ...wordTableColumns('words+trigram', { title: titleField, heading: chunk.heading, body: chunk.text }),
      );
      if (chunk.vector.length > 0) this.statements.insertVector.run(chunkId, encodeVector(chunk.vector));
    }
  }

  private *deleteFilesSteps(ids: readonly number[]): Steps<void> {
    for (const id of ids) {
      yield* this.deleteChunksSteps(id);
      this.statements.deleteFile.run(id);
    }
  }

  /** A file's chunks, DELETE_CHUNKS_AT_ONCE a step: vectors go with them (ON DELETE CASCADE), full-text rows and change log entries by trigger. */
  private *deleteChunksSteps(fileId: number): Steps<void> {
    while (this.statements.deleteSomeChunksOfFile.run(fileId, DELETE_CHUNKS_AT_ONCE).changes > 0) yield;
  }

  /** Cached values that are expensive to compute (a model file's hash by size and mtime). */
  metaValue(key: string): string | undefined {
    return readMetaValues(this.db).get(key);
  }

  writeMeta(values: Readonly<Record<string, string | number>>): void {
    this.db.transaction(() => writeMeta(this.db, values)).immediate();
  }

  /** Records the finished run and prunes the change log (docs/retrieval.md#index-format), in one transaction. */
  finishRun(fingerprint: string, fingerprintInputs: string, atMs: number): void {
    this.db
      .transaction(() => {
        writeMeta(this.db, {
          [META_KEYS.fingerprint]: fingerprint,
          [META_KEYS.fingerprintInputs]: fingerprintInputs,
          [META_KEYS.lastIndexedAtMs]: atMs,
        });
        pruneChangeLog(this.db, () => Number(this.statements.chunkCount.pluck().get()));
      })
      .immediate();
    this.options.walCheckpoints?.request();
  }

  close(): void {
    this.db.pragma('optimize');
    this.db.close();
  }

  private *upsertFileSteps(record: FileRecord, chunkCount: number, indexedAtMs: number): Steps<number> {
    const values = [
      record.namespace,
      record.title,
      JSON.stringify(record.aliases),
      JSON.stringify(record.tags),
      record.mtimeMs,
      record.sizeBytes,
      record.contentSha256,
      record.fingerprint,
      chunkCount,
      indexedAtMs,
    ];
    const existing = this.statements.fileId.get(record.vault, record.path);
    if (existing !== undefined) {
      const id = num(asRow(existing), 'id');
      yield* this.deleteChunksSteps(id);
      this.statements.updateFile.run(...values, id);
      return id;
    }
    const inserted = this.statements.insertFile.run(record.vault, record.path, ...values);
    return Number(inserted.lastInsertRowid);
  }
}
