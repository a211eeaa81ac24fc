import { endianness } from 'node:os';
import { LoopSlices } from '@notegate/kit';
import type Database from 'better-sqlite3';
import { RagError } from '../errors/rag-error.js';
import { decodeVector } from './vector-codec.js';

/** Every vector of a set of chunks in one contiguous array, with what filters need, for an exact scan in memory. */
export interface VectorMatrix {
  readonly dimension: number;
  readonly count: number;
  /** Row `i` is `data[i * dimension .. (i + 1) * dimension)`. */
  readonly data: Float32Array;
  /**
   * Rows are grouped by (vault, namespace), ascending chunk id inside a group,
   * so that any vault/namespace filter is a set of contiguous row ranges.
   */
  readonly chunkIds: Float64Array;
  /** The (vault, namespace) groups in row order: a filter becomes row ranges (`rangesFor`). */
  readonly partitions: readonly Partition[];
}

export interface Partition {
  readonly vault: string;
  readonly namespace: string;
  /** Rows `[start, end)`. */
  readonly start: number;
  readonly end: number;
}

/** The text of a chunk as the full-text tables were given it: the title field (title and aliases), heading, body. */
export interface ChunkText {
  readonly title: string;
  readonly heading: string;
  readonly body: string;
}

const HOST_IS_LITTLE_ENDIAN = endianness() === 'LE';
/**
 * Rows copied in one step when reading on a thread that serves requests: the loop gets a turn once
 * a slice (SLICE_MS) is used up, so a step must be short (docs/retrieval.md#index-runs). 2,048 rows
 * with their texts took 20-40 ms after a 7 MiB note.
 */
const ROWS_PER_STEP = 64;

/**
 * Reads all vectors of the state the connection reads (inside its read
 * transaction, or in one of its own). The arrays are in shared memory, so
 * that a worker can hand them over and read them without copying
 * (docs/retrieval.md#snapshots). The stored bytes are little-endian float32,
 * so on little-endian hosts they are copied as bytes.
 */
export function loadVectorMatrix(db: Database.Database, dimension: number): VectorMatrix {
  return db.transaction(() => {
    // Every chunk has one vector (one transaction per file); counting chunks reads the small
    // (vault, namespace) index instead of every vector page.
    const count = Number(db.prepare('SELECT count(*) FROM chunks').pluck().get());
    const rows = db
      .prepare(chunkRowsSql(dimension, 'all', false))
      .raw()
      .iterate();
    const steps = matrixSteps(rows, count, dimension, false);
    for (let step = steps.next(); ; step = steps.next()) if (step.done) return step.value.matrix;
  })();
}

/**
 * The rows of `chunkIds` as a matrix of their own (grouped as above), and
 * their texts when asked, read inside the caller's read transaction,
 * giving the event loop a turn whenever a slice is used up. A chunk id the state
 * does not hold is an error: the caller's view of the index is wrong.
 */
export async function readChunkRows(
  db: Database.Database,
  chunkIds: readonly number[],
  options: { readonly dimension: number; readonly texts: boolean },
): Promise<{ readonly matrix: VectorMatrix; readonly texts: readonly ChunkText[] }> {
  const { dimension, texts } = options;
  const rows = db
    .prepare(chunkRowsSql(dimension, 'some', texts))
    .raw()
    .iterate(JSON.stringify(chunkIds));
  const read = await new LoopSlices().run(matrixSteps(rows, chunkIds.length, dimension, texts));
  if (read.matrix.count !== chunkIds.length) {
    throw new RagError('ERR_INDEX_SCHEMA', `${chunkIds.length - read.matrix.count} chunks are missing`);
  }
  return read;
}

/**
 * The texts of `chunkIds`, in that order, in the state the connection reads
 * (inside its read transaction); a chunk id the state does not hold is an
 * error. In one go: the connection may be serving searches between two turns.
 */
export function readChunkTexts(db: Database.Database, chunkIds: readonly number[]): ChunkText[] {
  const texts = new Map<number, ChunkText>();
  const rows = db
    .prepare('SELECT id, title, heading, body FROM chunks WHERE id IN (SELECT value FROM json_each(?))')
    .raw()
    .all(JSON.stringify(chunkIds));
  for (const row of rows) {
    const [id, title, heading, body] = row as [number, string, string, string];
    texts.set(id, { title, heading, body });
  }
  return chunkIds.map((id) => {
    const text = texts.get(id);
    if (text === undefined) throw new RagError('ERR_INDEX_SCHEMA', `chunk ${id} is missing`);
    return text;
  });
}

/**
 * Every chunk in the order of the index chunks_by_vault_namespace, (vault,
 * namespace, id) (the rowid ends every index entry); some chunks looked up by
 * id, then sorted the same way.
 */
function chunkRowsSql(dimension: number, which: 'all' | 'some', texts: boolean): string {
  // An index without vectors (dimension 0) still gets its rows grouped, for filters.
  const embedding = dimension > 0 ? 'v.embedding' : 'NULL';
  const join = dimension > 0 ? 'JOIN chunk_vectors v ON v.chunk_id = c.id' : '';
  const source =
    which === 'all'
      ? 'chunks c INDEXED BY chunks_by_vault_namespace'
      : 'json_each(?) ids CROSS JOIN chunks c ON c.id = ids.value';
  const columns = texts ? 'c.title, c.heading, c.body' : 'NULL, NULL, NULL';
  return `SELECT c.id, c.vault, c.namespace, ${embedding}, ${columns}
    FROM ${source} ${join} ORDER BY c.vault, c.namespace, c.id`;
}

function* matrixSteps(
  rows: IterableIterator<unknown>,
  count: number,
  dimension: number,
  withTexts: boolean,
): Generator<void, { matrix: VectorMatrix; texts: ChunkText[] }> {
  const data = new Float32Array(new SharedArrayBuffer(count * dimension * 4));
  const bytes = new Uint8Array(data.buffer);
  const chunkIds = new Float64Array(new SharedArrayBuffer(count * 8));
  const partitions: Partition[] = [];
  const texts: ChunkText[] = [];
  let i = 0;
  for (const row of rows) {
    if (!Array.isArray(row) || i >= count) break;
    const [chunkId, vault, namespace, embedding, title, heading, body] = row;
    if (dimension > 0 && (!Buffer.isBuffer(embedding) || embedding.length !== dimension * 4)) {
      throw new RagError(
        'ERR_INDEX_SCHEMA',
        `chunk ${String(chunkId)} has a vector of ${String(embedding?.length)} bytes, expected ${dimension * 4}`,
      );
    }
    if (Buffer.isBuffer(embedding)) {
      if (HOST_IS_LITTLE_ENDIAN) bytes.set(embedding, i * dimension * 4);
      else data.set(decodeVector(embedding), i * dimension);
    }
    chunkIds[i] = Number(chunkId);
    if (withTexts) texts.push({ title: String(title), heading: String(heading), body: String(body) });
    const last = partitions[partitions.length - 1];
    if (last === undefined || last.vault !== String(vault) || last.namespace !== String(namespace)) {
      partitions.push({ vault: String(vault), namespace: String(namespace), start: i, end: i });
    }
    i += 1;
    if (i % ROWS_PER_STEP === 0) yield;
  }
  const matrix = {
    dimension,
    count: i,
    data,
    chunkIds,
    // Each group ends where the next begins.
    partitions: partitions.map((p, k) => ({ ...p, end: partitions[k + 1]?.start ?? i })),
  };
  return { matrix, texts };
}
