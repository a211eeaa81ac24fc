import { existsSync } from 'node:fs';
import type Database from 'better-sqlite3';
import type { ModelSpec } from '../config/models.js';
import { RagError } from '../errors/rag-error.js';
import { COLUMN_WEIGHTS } from '../store/fts-column-weights.js';
import { assertIndexMatches, type IndexMeta } from '../store/index-meta.js';
import { loadVectorMatrixCooperatively, type VectorMatrix } from '../store/load-vectors.js';
import { openDatabase } from '../store/open-database.js';
import { asRow, num, text } from '../store/rows.js';
import { Int8VectorSearch } from '../vectors/int8-scan.js';
import { exactScan, type RowRange, rangesFor, type VectorSearch } from '../vectors/vector-scan.js';
import { HIT_ROWS_SQL, type HitRow, readHitRows } from './hit-rows.js';

/** Memory-mapped reads: the FTS index of 100k chunks is hundreds of MB, read through the page cache. */
const MMAP_BYTES = 4 * 1024 ** 3;

export interface VaultCounts {
  readonly vault: string;
  readonly files: number;
  readonly chunks: number;
}

/** Title, heading or body contains @pattern (a LIKE pattern with `\` as its escape). */
const CONTAINS =
  "(title LIKE @pattern ESCAPE '\\' OR heading LIKE @pattern ESCAPE '\\' OR body LIKE @pattern ESCAPE '\\')";

/** The searchable text of one chunk, by FTS column. */
export interface ChunkText {
  readonly chunkId: number;
  readonly title: string;
  readonly heading: string;
  readonly body: string;
}

/** A vault and namespace filter over one snapshot. */
export interface SnapshotFilter {
  readonly ranges: readonly RowRange[];
  accepts(chunkId: number): boolean;
}

/** The vectors of one vectors generation, and what is derived from them: shared by the snapshots of that generation. */
interface LoadedVectors {
  readonly generation: string | undefined;
  readonly search: VectorSearch;
  readonly rowOfChunk: ReadonlyMap<number, number>;
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
  private readonly rowOfChunk: ReadonlyMap<number, number>;
  private readonly statements: {
    readonly matches: Database.Statement;
    readonly matchIds: Database.Statement;
    readonly texts: Database.Statement;
    readonly hitRows: Database.Statement;
    /** LIKE scans for text under one trigram: over every chunk, and over the chunk ids in a JSON array. */
    readonly substring: Database.Statement;
    readonly substringIn: Database.Statement;
  };

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
    const { title, heading, body } = COLUMN_WEIGHTS;
    this.statements = {
      matches: db.prepare(
        `SELECT rowid AS id, bm25(chunks_fts, ${title}, ${heading}, ${body}) AS score FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT ?`,
      ),
      matchIds: db.prepare('SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT ?').pluck(),
      texts: db.prepare(
        'SELECT id, title, heading, body FROM chunks WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id',
      ),
      hitRows: db.prepare(HIT_ROWS_SQL),
      substring: db.prepare(`SELECT id FROM chunks WHERE ${CONTAINS} ORDER BY id LIMIT @limit`).pluck(),
      substringIn: db
        .prepare(
          `SELECT id FROM chunks WHERE id IN (SELECT value FROM json_each(@ids)) AND ${CONTAINS} ORDER BY id LIMIT @limit`,
        )
        .pluck(),
    };
  }

  /**
   * Opens the index at `file` and loads it, yielding to the event loop while
   * the vectors load. Refuses an index of another format or model. When the
   * index's vectors generation is that of `previous` (only metadata, such as
   * a finished run's timestamp or a file's mtime, changed since), the new
   * snapshot shares its vectors instead of loading them again.
   */
  static async open(
    file: string,
    model: ModelSpec,
    clock: () => number,
    previous?: IndexSnapshot,
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
      const loaded = reusable ? previous.loaded : await loadVectors(db, meta);
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

  filter(vaults: readonly string[] | undefined, namespaces: readonly string[] | undefined): SnapshotFilter {
    const { matrix } = this.vectors;
    const ranges = rangesFor(matrix, vaults, namespaces);
    return {
      ranges,
      accepts: (chunkId) => {
        const row = this.rowOfChunk.get(chunkId);
        if (row === undefined) return false;
        return ranges.some(([start, end]) => row >= start && row < end);
      },
    };
  }

  /** The matrix row of a chunk; a chunk missing from its own snapshot is a broken index. */
  rowOf(chunkId: number): number {
    const row = this.rowOfChunk.get(chunkId);
    if (row === undefined) throw new RagError('ERR_INDEX_SCHEMA', `chunk ${chunkId} has no vector in the index`);
    return row;
  }

  ftsMatches(expression: string, limit: number): { chunkId: number; bm25: number }[] {
    return this.statements.matches.all(expression, limit).map((value) => {
      const row = asRow(value);
      return { chunkId: num(row, 'id'), bm25: num(row, 'score') };
    });
  }

  ftsMatchIds(expression: string, limit: number): number[] {
    return this.statements.matchIds.all(expression, limit).map(Number);
  }

  /** LIKE scan for text under one trigram, scoped to the filter's rows (chunk ids of its partitions). */
  substringMatches(needle: string, limit: number, filter: SnapshotFilter): number[] {
    const pattern = `%${needle.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const covered = filter.ranges.reduce((sum, [start, end]) => sum + end - start, 0);
    const rows =
      covered === this.vectors.matrix.count
        ? this.statements.substring.all({ pattern, limit })
        : this.statements.substringIn.all({ pattern, limit, ids: JSON.stringify(this.filteredChunkIds(filter)) });
    return rows.map(Number);
  }

  texts(chunkIds: readonly number[]): ChunkText[] {
    return this.statements.texts.all(JSON.stringify(chunkIds)).map((value) => {
      const row = asRow(value);
      return {
        chunkId: num(row, 'id'),
        title: text(row, 'title'),
        heading: text(row, 'heading'),
        body: text(row, 'body'),
      };
    });
  }

  /** The rows of the hits, in the order asked; throws when one is missing (never a silently shorter list). */
  hitRows(chunkIds: readonly number[]): HitRow[] {
    return readHitRows(this.statements.hitRows, chunkIds);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  private filteredChunkIds(filter: SnapshotFilter): number[] {
    const { chunkIds } = this.vectors.matrix;
    return filter.ranges.flatMap(([start, end]) => Array.from(chunkIds.subarray(start, end)));
  }
}

/** Loads the vectors of the snapshot `db` holds open, and maps chunk ids to their rows. */
async function loadVectors(db: Database.Database, meta: IndexMeta): Promise<LoadedVectors> {
  const matrix = await loadVectorMatrixCooperatively(db, meta.dimension);
  const search = await fastestSearch(matrix);
  const rowOfChunk = new Map<number, number>();
  const { chunkIds } = matrix;
  for (let row = 0; row < chunkIds.length; row += 1) rowOfChunk.set(chunkIds[row] ?? 0, row);
  return { generation: meta.vectorsGeneration, search, rowOfChunk };
}

/** The WebAssembly int8 scan where it runs (Node 20 has SIMD); the plain scan otherwise (`--jitless`, odd dimensions). */
async function fastestSearch(matrix: VectorMatrix): Promise<VectorSearch> {
  try {
    return await Int8VectorSearch.build(matrix);
  } catch {
    return exactScan(matrix);
  }
}

function vaultCounts(db: Database.Database): VaultCounts[] {
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
