import { existsSync, statSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { hasAnyTag, normalizeTag } from '../chunk/tags.js';
import type { ModelSpec } from '../config/models.js';
import { RagError } from '../errors/rag-error.js';
import type { LogPosition } from '../store/change-log.js';
import { type VaultCounts, vaultFileCounts } from '../store/index-contents.js';
import { assertIndexMatches, type IndexMeta } from '../store/index-meta.js';
import { openDatabase } from '../store/open-database.js';
import { asRow, num, text } from '../store/rows.js';
import type { ScanThread } from '../vectors/scan-thread-client.js';
import type { ScoredRow } from '../vectors/top-k.js';
import { type RowRange, rangesFor } from '../vectors/vector-scan.js';
import { sharedFts5Mirror } from '../words/fts5-mirror.js';
import type { Fts5Totals } from '../words/fts5-totals.js';
import { MemoryWords } from '../words/memory-words.js';
import type { ChunkScope } from '../words/word-ranking.js';
import type { PostingRows } from '../words/word-segment.js';
import {
  HIT_ROWS_SQL,
  type HitRow,
  NOTE_CHUNKS_SQL,
  NOTE_OF_CHUNKS_SQL,
  readHitRows,
  readNoteRows,
} from './hit-rows.js';
import { LexicalTables } from './lexical-tables.js';
import { type FollowedSnapshot, loadSegments, type SnapshotLoad } from './load-segments.js';
import { rangesHolding } from './row-ranges.js';
import type { BegunNearest, SegmentSet } from './segment-set.js';
import { type SegmentJobs, SegmentWorker } from './segment-worker-client.js';

/** Memory-mapped reads: the full-text tables of 100k chunks are hundreds of MB, read through the page cache. */
const MMAP_BYTES = 4 * 1024 ** 3;

/** The choices a search of a snapshot can be narrowed by. */
export interface SnapshotFacets {
  readonly namespaces: readonly { readonly vault: string; readonly namespace: string; readonly chunks: number }[];
  readonly tags: readonly { readonly tag: string; readonly notes: number }[];
}

/** A vault, namespace and tag filter over one snapshot (undefined lists: no restriction). */
export interface SnapshotFilter {
  readonly vaults: readonly string[] | undefined;
  readonly namespaces: readonly string[] | undefined;
  /** The same for the full-text tables (a vault list naming every vault of the index is none). */
  readonly scope: ChunkScope;
}

export interface SnapshotOptions {
  readonly model: ModelSpec;
  readonly clock?: () => number;
  /**
   * The snapshot served until now: when the index is the same file and its
   * change log reaches back to that snapshot's state, the new one is that
   * snapshot's in-memory index plus what changed since (docs/retrieval.md#snapshots).
   */
  readonly previous?: IndexSnapshot;
  /**
   * Keeps the word tier's postings in memory (default true); false ranks the
   * word tier in SQLite only (a one-shot search; benchmarks compare both).
   */
  readonly memoryWords?: boolean;
  /** Where segments are built; default a worker thread of its own for this call. */
  readonly worker?: SegmentJobs;
  /** Runs large segments' dense scans beside a hybrid search's lexical leg (docs/retrieval.md#dense-leg); default none. */
  readonly scanThread?: ScanThread;
}

/**
 * One consistent state of the index: a connection that holds a read
 * transaction open (WAL keeps that state readable while `index` commits),
 * and the in-memory index of the same state (vectors and word postings, in
 * segments). Every read of a request goes through one snapshot, so a request
 * never mixes two states and never sees a file half-updated.
 */
export class IndexSnapshot {
  readonly lexical: LexicalTables;
  /** Files and chunks per vault, read at first use: a query over every file (docs/retrieval.md#writes-at-scale). */
  #vaults: readonly VaultCounts[] | undefined;
  private readonly hitRowsStatement: Database.Statement;
  private readonly noteStatements: { readonly of: Database.Statement; readonly chunks: Database.Statement };
  /** The notes that have tags, read at the first tag filter (a snapshot's state never changes). */
  private taggedNotes: readonly { readonly fileId: number; readonly tags: readonly string[] }[] | undefined;
  #segments: SegmentSet;
  #words: MemoryWords | undefined;

  private constructor(
    private readonly db: Database.Database,
    readonly meta: IndexMeta,
    /** The state of the change log this snapshot reads. */
    readonly position: LogPosition,
    /** FTS5's totals in this state (read when the word tier is in memory). */
    readonly totals: Fts5Totals | undefined,
    segments: SegmentSet,
    /** The index file's inode when the snapshot was taken: another file is never followed by its changes. */
    readonly inode: number,
    readonly load: SnapshotLoad,
    readonly loadedAtMs: number,
    readonly loadDurationMs: number,
    private readonly scanThread: ScanThread | undefined,
  ) {
    this.#segments = segments;
    this.#words = wordsOf(segments, totals);
    this.lexical = new LexicalTables(db, meta.lexicalLayout, this.chunks, () => this.#words);
    this.hitRowsStatement = db.prepare(HIT_ROWS_SQL);
    this.noteStatements = { of: db.prepare(NOTE_OF_CHUNKS_SQL), chunks: db.prepare(NOTE_CHUNKS_SQL) };
  }

  /**
   * Opens the index at `file` and loads its in-memory index: the previous
   * snapshot's plus what changed since, when it can follow it, else the whole
   * index in a worker thread. Refuses an index of another format or model.
   */
  static async open(file: string, options: SnapshotOptions): Promise<IndexSnapshot> {
    if (options.worker === undefined) {
      const worker = new SegmentWorker();
      try {
        return await IndexSnapshot.open(file, { ...options, worker });
      } finally {
        await worker.close();
      }
    }
    const { worker } = options;
    if (!existsSync(file)) throw new RagError('ERR_INDEX_MISSING', `no index at ${file}; run 'notegate-rag index'`);
    const clock = options.clock ?? Date.now;
    const startedAtMs = clock();
    const inode = statSync(file).ino;
    const db = openDatabase(file, { reader: true });
    try {
      db.pragma(`mmap_size = ${MMAP_BYTES}`);
      const advice = "run 'notegate-rag index --rebuild', then restart serve";
      // Refused before anything is loaded; checked again inside the snapshot's transaction.
      assertIndexMatches(db, file, options.model, advice);
      const previous = options.previous?.inode === inode ? options.previous.followed : undefined;
      const loaded = await loadSegments(db, {
        file,
        model: options.model,
        previous,
        memoryWords: options.memoryWords ?? true,
        worker,
        begin: () => {
          // The snapshot is taken by the first read after BEGIN and held until close().
          db.exec('BEGIN');
          return assertIndexMatches(db, file, options.model, advice);
        },
      });
      return new IndexSnapshot(
        db,
        loaded.meta,
        loaded.position,
        loaded.totals,
        loaded.segments,
        inode,
        loaded.load,
        clock(),
        clock() - startedAtMs,
        options.scanThread,
      );
    } catch (err) {
      db.close();
      throw err;
    }
  }

  /** The in-memory index of this state. */
  get segments(): SegmentSet {
    return this.#segments;
  }

  /** The word tier's index in memory of this state; undefined when SQLite ranks it. */
  get words(): MemoryWords | undefined {
    return this.#words;
  }

  /** For the snapshot source: the same state's in-memory index, merged otherwise (docs/retrieval.md#snapshots). */
  replaceSegments(segments: SegmentSet): void {
    this.#segments = segments;
    this.#words = wordsOf(segments, this.totals);
  }

  /** What the next snapshot needs of this one to follow it. */
  private get followed(): FollowedSnapshot {
    return { position: this.position, segments: this.#segments, totals: this.totals, db: this.db };
  }

  /**
   * Files and chunks per vault, at first use, not when the snapshot is made
   * (a commit's snapshot is made on the serving thread, and searches never
   * need them): the files counted from the index's `(vault, path)` index, the
   * chunks from the segments' live rows (docs/retrieval.md#writes-at-scale).
   */
  get vaults(): readonly VaultCounts[] {
    if (this.#vaults === undefined) {
      const chunks = new Map<string, number>();
      for (const group of this.#segments.chunksByGroup()) {
        chunks.set(group.vault, (chunks.get(group.vault) ?? 0) + group.chunks);
      }
      this.#vaults = [...vaultFileCounts(this.db)].map(([vault, files]) => ({
        vault,
        files,
        chunks: chunks.get(vault) ?? 0,
      }));
    }
    return this.#vaults;
  }

  get files(): number {
    return this.vaults.reduce((sum, v) => sum + v.files, 0);
  }

  /** The chunks of this state: the live rows of its segments, which hold every chunk of the index. */
  get chunks(): number {
    return this.#segments.liveRows;
  }

  /**
   * The dense leg's back end, as /health names it: the approximate one when a
   * segment is large enough for it (docs/retrieval.md#dense-leg), else the one
   * every segment shares.
   */
  get vectorBackend(): string {
    const searches = this.#segments.states.map((state) => state.segment.vectors);
    return (searches.find((search) => !search.exact) ?? searches[0])?.backend ?? 'none';
  }

  /** Whether the dense leg returns the exact top k (no segment is searched through sign codes). */
  get vectorsExact(): boolean {
    return this.#segments.states.every((state) => state.segment.vectors.exact);
  }

  /**
   * Undefined lists are no restriction; a vault list naming every vault of the index is none either.
   * Tags (docs/retrieval.md#tags) narrow the vault and namespace filter to the chunks of notes that
   * have one of them: files for SQLite, and in each segment the rows of those chunks for the vectors
   * and the memory.
   */
  filter(
    vaults: readonly string[] | undefined,
    namespaces: readonly string[] | undefined,
    tags?: readonly string[],
  ): SnapshotFilter {
    // The vaults that have chunks, from the segments' partitions: a vault of files without chunks has none to filter.
    const everyVault = vaults === undefined || this.#segments.vaultNames().every((vault) => vaults.includes(vault));
    const scope = { vaults: everyVault ? undefined : vaults, namespaces };
    if (tags === undefined) return { vaults, namespaces, scope };
    const wanted = tags.map(normalizeTag);
    const fileIds = this.notesWithTags().flatMap((note) => (hasAnyTag(note.tags, wanted) ? [note.fileId] : []));
    const chunkIds = new Set(
      this.db
        .prepare('SELECT id FROM chunks WHERE file_id IN (SELECT value FROM json_each(?))')
        .pluck()
        .all(JSON.stringify(fileIds))
        .map(Number),
    );
    // Both legs ask for the same segments' rows: each segment's are found once per filter.
    const found = new Map<PostingRows, RowRange[]>();
    const rangesIn = (rows: PostingRows): RowRange[] => {
      const ranges = found.get(rows) ?? rangesHolding(rows.chunkIds, rangesFor(rows, vaults, namespaces), chunkIds);
      found.set(rows, ranges);
      return ranges;
    };
    return { vaults, namespaces, scope: { ...scope, narrowed: { fileIds, rangesIn } } };
  }

  /**
   * What a search of this snapshot can be narrowed to (the search page's
   * choices): the (vault, namespace) groups with their chunks, and every tag
   * with the notes that have it or a tag nested below it.
   */
  facets(): SnapshotFacets {
    const namespaces = this.#segments.chunksByGroup();
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

  /** The `k` chunks nearest the query among those the filter passes, best first (docs/retrieval.md#dense-leg). */
  nearest(query: Float32Array, k: number, filter: SnapshotFilter): ScoredRow[] {
    return this.beginNearest(query, k, filter).rows();
  }

  /** `nearest`, begun: large segments are scanned on the scan thread meanwhile, when there is one; `rows()` gives the hits. */
  beginNearest(query: Float32Array, k: number, filter: SnapshotFilter): BegunNearest {
    if (query.length !== this.meta.dimension) {
      throw new Error(`query vector has ${query.length} dimensions, the index ${this.meta.dimension}`);
    }
    const { vaults, namespaces, scope } = filter;
    return this.#segments.beginNearest(
      query,
      k,
      (segment) => scope.narrowed?.rangesIn(segment.matrix) ?? rangesFor(segment.matrix, vaults, namespaces),
      this.scanThread,
    );
  }

  /** A chunk's stored vector; a chunk missing from its own snapshot is a broken index. */
  vectorOf(chunkId: number): Float32Array {
    const vector = this.#segments.vectorOf(chunkId);
    if (vector === undefined) throw new RagError('ERR_INDEX_SCHEMA', `chunk ${chunkId} has no vector in the index`);
    return vector;
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
  close(): void {
    if (this.db.open) this.db.close();
  }
}

function wordsOf(segments: SegmentSet, totals: Fts5Totals | undefined): MemoryWords | undefined {
  const words = segments.wordSegments();
  return words && totals ? new MemoryWords(words, totals, sharedFts5Mirror()) : undefined;
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
