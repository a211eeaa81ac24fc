import { existsSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { hasAnyTag, normalizeTag } from '../chunk/tags.js';
import type { ModelSpec } from '../config/models.js';
import { RagError } from '../errors/rag-error.js';
import { type VaultCounts, vaultCounts } from '../store/index-contents.js';
import { assertIndexMatches, type IndexMeta } from '../store/index-meta.js';
import { loadVectorMatrixCooperatively, type VectorMatrix } from '../store/load-vectors.js';
import { openDatabase } from '../store/open-database.js';
import { asRow, num, text } from '../store/rows.js';
import { Int8VectorSearch } from '../vectors/int8-scan.js';
import { exactScan, noVectors, type RowRange, rangesFor, type VectorSearch } from '../vectors/vector-scan.js';
import { WordIndex, type WordIndexState } from '../words/word-index.js';
import type { ChunkScope } from '../words/word-ranking.js';
import {
  HIT_ROWS_SQL,
  type HitRow,
  NOTE_CHUNKS_SQL,
  NOTE_OF_CHUNKS_SQL,
  readHitRows,
  readNoteRows,
} from './hit-rows.js';
import { LexicalTables } from './lexical-tables.js';
import { intersectRanges, rangesOfRows } from './row-ranges.js';

/** Memory-mapped reads: the full-text tables of 100k chunks are hundreds of MB, read through the page cache. */
const MMAP_BYTES = 4 * 1024 ** 3;

/** The choices a search of a snapshot can be narrowed by. */
export interface SnapshotFacets {
  readonly namespaces: readonly { readonly vault: string; readonly namespace: string; readonly chunks: number }[];
  readonly tags: readonly { readonly tag: string; readonly notes: number }[];
}

/** A vault and namespace filter over one snapshot: row ranges for the vectors, a scope for the full-text tables. */
export interface SnapshotFilter {
  readonly ranges: readonly RowRange[];
  readonly scope: ChunkScope;
}

/** The vectors of one vectors generation, and what is derived from them: shared by the snapshots of that generation. */
interface LoadedVectors {
  readonly generation: string | undefined;
  readonly search: VectorSearch;
  readonly rowOfChunk: ReadonlyMap<number, number>;
  /** The word table's index in memory, in the rows of the vectors (docs/retrieval.md#snapshots). */
  readonly words: WordIndex;
}

export interface SnapshotOptions {
  /**
   * Builds the in-memory word index for a newly loaded generation (default
   * true); false ranks the word tier in SQLite only (benchmarks compare both).
   */
  readonly memoryWords?: boolean;
}

/**
 * One consistent state of the index: a connection that holds a read
 * transaction open (WAL keeps that state readable while `index` commits),
 * and the vectors of the same state. Every read of a request goes through
 * one snapshot, so a request never mixes two states and never sees a file
 * half-updated.
 */
export class IndexSnapshot {
  readonly vectors: VectorSearch;
  readonly lexical: LexicalTables;
  private readonly rowOfChunk: ReadonlyMap<number, number>;
  private readonly hitRowsStatement: Database.Statement;
  private readonly noteStatements: { readonly of: Database.Statement; readonly chunks: Database.Statement };
  /** The notes that have tags, read at the first tag filter (a snapshot's state never changes). */
  private taggedNotes: readonly { readonly fileId: number; readonly tags: readonly string[] }[] | undefined;

  private constructor(
    private readonly db: Database.Database,
    readonly meta: IndexMeta,
    private readonly loaded: LoadedVectors,
    readonly vaults: readonly VaultCounts[],
    readonly loadedAtMs: number,
    readonly loadDurationMs: number,
  ) {
    this.vectors = loaded.search;
    this.rowOfChunk = loaded.rowOfChunk;
    this.lexical = new LexicalTables(db, meta.lexicalLayout, this.chunks, () => loaded.words.ready);
    this.hitRowsStatement = db.prepare(HIT_ROWS_SQL);
    this.noteStatements = { of: db.prepare(NOTE_OF_CHUNKS_SQL), chunks: db.prepare(NOTE_CHUNKS_SQL) };
    // Last: a snapshot that fails to prepare its statements never holds the word index (nor starts its build).
    loaded.words.retain();
  }

  /**
   * Opens the index at `file` and loads it, yielding to the event loop while
   * the vectors load. Refuses an index of another format or model. When the
   * index's vectors generation is that of `previous` (only metadata, such as
   * a finished run's timestamp or a file's mtime, changed since), the new
   * snapshot shares its vectors and its word index instead of loading them
   * again; else it starts building the word index in the background.
   */
  static async open(
    file: string,
    model: ModelSpec,
    clock: () => number,
    previous?: IndexSnapshot,
    options: SnapshotOptions = {},
  ): Promise<IndexSnapshot> {
    if (!existsSync(file)) throw new RagError('ERR_INDEX_MISSING', `no index at ${file}; run 'notegate-rag index'`);
    const startedAtMs = clock();
    const db = openDatabase(file, { reader: true });
    try {
      db.pragma(`mmap_size = ${MMAP_BYTES}`);
      // The snapshot is taken by the first read after BEGIN and held until close().
      db.exec('BEGIN');
      const meta = assertIndexMatches(db, file, model, "run 'notegate-rag index --rebuild', then restart serve");
      const generation = meta.vectorsGeneration;
      const reusable = generation !== undefined && previous?.loaded.generation === generation;
      const loaded = reusable
        ? previous.loaded
        : await loadVectors(db, meta, { file, clock, memoryWords: options.memoryWords ?? true });
      return new IndexSnapshot(db, meta, loaded, vaultCounts(db), clock(), clock() - startedAtMs);
    } catch (err) {
      db.close();
      throw err;
    }
  }

  get files(): number {
    return this.vaults.reduce((sum, v) => sum + v.files, 0);
  }

  get chunks(): number {
    return this.vaults.reduce((sum, v) => sum + v.chunks, 0);
  }

  /**
   * Undefined lists are no restriction; a vault list naming every vault of the index is none either.
   * Tags (docs/retrieval.md#tags) narrow the vault and namespace filter to the chunks of notes that
   * have one of them, as files for SQLite and as rows for the vectors and the memory.
   */
  filter(
    vaults: readonly string[] | undefined,
    namespaces: readonly string[] | undefined,
    tags?: readonly string[],
  ): SnapshotFilter {
    const everyVault = vaults === undefined || this.vaults.every((v) => vaults.includes(v.vault));
    const ranges = rangesFor(this.vectors.matrix, vaults, namespaces);
    const scope = { vaults: everyVault ? undefined : vaults, namespaces };
    if (tags === undefined) return { ranges, scope };
    const wanted = tags.map(normalizeTag);
    const fileIds = this.notesWithTags().flatMap((note) => (hasAnyTag(note.tags, wanted) ? [note.fileId] : []));
    const chunkIds = this.db
      .prepare('SELECT id FROM chunks WHERE file_id IN (SELECT value FROM json_each(?))')
      .pluck()
      .all(JSON.stringify(fileIds));
    const rows = intersectRanges(ranges, rangesOfRows(chunkIds.map((id) => this.rowOf(Number(id)))));
    return { ranges: rows, scope: { ...scope, narrowed: { fileIds, rows } } };
  }

  /**
   * What a search of this snapshot can be narrowed to (the search page's
   * choices): the (vault, namespace) groups with their chunks, and every tag
   * with the notes that have it or a tag nested below it.
   */
  facets(): SnapshotFacets {
    const namespaces = this.vectors.matrix.partitions.map((p) => ({
      vault: p.vault,
      namespace: p.namespace,
      chunks: p.end - p.start,
    }));
    const notesOfTag = new Map<string, Set<number>>();
    for (const note of this.notesWithTags()) {
      for (const tag of note.tags.map(normalizeTag)) {
        const parts = tag.split('/');
        for (let depth = 1; depth <= parts.length; depth += 1) {
          const name = parts.slice(0, depth).join('/');
          if (name === '') continue;
          const notes = notesOfTag.get(name) ?? new Set<number>();
          notes.add(note.fileId);
          notesOfTag.set(name, notes);
        }
      }
    }
    const tags = [...notesOfTag]
      .map(([tag, notes]) => ({ tag, notes: notes.size }))
      .sort((a, b) => (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0));
    return { namespaces, tags };
  }

  private notesWithTags(): readonly { readonly fileId: number; readonly tags: readonly string[] }[] {
    this.taggedNotes ??= this.db
      .prepare("SELECT id, tags FROM files WHERE tags <> '[]'")
      .all()
      .map((value) => {
        const row = asRow(value);
        return { fileId: num(row, 'id'), tags: tagList(text(row, 'tags')) };
      });
    return this.taggedNotes;
  }

  /** The matrix row of a chunk; a chunk missing from its own snapshot is a broken index. */
  rowOf(chunkId: number): number {
    const row = this.rowOfChunk.get(chunkId);
    if (row === undefined) throw new RagError('ERR_INDEX_SCHEMA', `chunk ${chunkId} has no vector in the index`);
    return row;
  }

  /** The rows of the hits, in the order asked; throws when one is missing (never a silently shorter list). */
  hitRows(chunkIds: readonly number[]): HitRow[] {
    return readHitRows(this.hitRowsStatement, chunkIds);
  }

  /** The note (file id) of each of the chunks. */
  notesOf(chunkIds: readonly number[]): Map<number, number> {
    const notes = new Map<number, number>();
    for (const value of this.noteStatements.of.all(JSON.stringify(chunkIds))) {
      const row = asRow(value);
      notes.set(num(row, 'id'), num(row, 'file_id'));
    }
    return notes;
  }

  /** The hits as whole notes: each chunk's row with its note's line range and text (docs/retrieval.md#post-search). */
  noteRows(chunkIds: readonly number[]): HitRow[] {
    return readNoteRows({ hits: this.hitRowsStatement, notes: this.noteStatements.chunks }, chunkIds);
  }

  /** The in-memory word index of this snapshot's generation: building, ready or unavailable (SQLite ranks). */
  get wordIndex(): WordIndexState {
    return this.loaded.words.state;
  }

  /** Resolves once the word index is ready or known to be unavailable. */
  wordIndexSettled(): Promise<void> {
    return this.loaded.words.settled();
  }

  close(): void {
    if (!this.db.open) return;
    this.db.close();
    this.loaded.words.release();
  }
}

/**
 * Loads the vectors of the snapshot `db` holds open, and maps chunk ids to
 * their rows; the word index is built for a known generation only (a build
 * on its own connection can only check that it reads the same state by it).
 */
async function loadVectors(
  db: Database.Database,
  meta: IndexMeta,
  words: { readonly file: string; readonly clock: () => number; readonly memoryWords: boolean },
): Promise<LoadedVectors> {
  const matrix = await loadVectorMatrixCooperatively(db, meta.dimension);
  const search = await fastestSearch(matrix);
  const rowOfChunk = new Map<number, number>();
  const { chunkIds, partitions } = matrix;
  for (let row = 0; row < chunkIds.length; row += 1) rowOfChunk.set(chunkIds[row] ?? 0, row);
  const generation = meta.vectorsGeneration;
  const wordIndex = !words.memoryWords
    ? WordIndex.unavailable('switched off')
    : generation === undefined
      ? WordIndex.unavailable('the index records no vectors generation')
      : WordIndex.of({ file: words.file, generation, rows: { chunkIds, partitions } }, words.clock);
  return { generation, search, rowOfChunk, words: wordIndex };
}

/** The WebAssembly int8 scan where it runs (Node 20 has SIMD); the plain scan otherwise (`--jitless`, odd dimensions). */
async function fastestSearch(matrix: VectorMatrix): Promise<VectorSearch> {
  if (matrix.dimension === 0) return noVectors(matrix);
  try {
    return await Int8VectorSearch.build(matrix);
  } catch {
    return exactScan(matrix);
  }
}

/** The `tags` column: a JSON list of strings, as the store writes it. */
function tagList(json: string): string[] {
  const value: unknown = JSON.parse(json);
  const tags = Array.isArray(value) ? value.filter((tag): tag is string => typeof tag === 'string') : [];
  if (!Array.isArray(value) || tags.length !== value.length) {
    throw new RagError('ERR_INDEX_SCHEMA', `a note's tags are not a list of strings: ${json}`);
  }
  return tags;
}
