import { endianness } from 'node:os';
import type Database from 'better-sqlite3';
import { RagError } from '../errors/rag-error.js';
import { decodeVector } from './vector-codec.js';

/** Every vector of the index in one contiguous array, with what filters need, for an exact scan in memory. */
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

const HOST_IS_LITTLE_ENDIAN = endianness() === 'LE';
/** Rows copied between two yields of the cooperative loader. */
const ROWS_PER_STEP = 2048;

/**
 * Reads all vectors in one consistent snapshot (one read transaction). The
 * stored bytes are little-endian float32, so on little-endian hosts they are
 * copied as bytes.
 */
export function loadVectorMatrix(db: Database.Database, dimension: number): VectorMatrix {
  return db.transaction(() => {
    const steps = matrixSteps(db, dimension);
    for (let step = steps.next(); ; step = steps.next()) if (step.done) return step.value;
  })();
}

/**
 * The same, giving the event loop a turn every few thousand rows so that a
 * server keeps answering while it loads. The caller must hold a read
 * transaction on `db` (the snapshot being loaded), and must not use `db`
 * for anything else until this resolves.
 */
export async function loadVectorMatrixCooperatively(db: Database.Database, dimension: number): Promise<VectorMatrix> {
  if (!db.inTransaction) throw new Error('loadVectorMatrixCooperatively needs an open read transaction');
  const steps = matrixSteps(db, dimension);
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) return step.value;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

function* matrixSteps(db: Database.Database, dimension: number): Generator<void, VectorMatrix> {
  // Every chunk has one vector (one transaction per file); counting chunks reads the small
  // (vault, namespace) index instead of every vector page.
  const count = Number(db.prepare('SELECT count(*) FROM chunks').pluck().get());
  const data = new Float32Array(count * dimension);
  const bytes = new Uint8Array(data.buffer);
  const chunkIds = new Float64Array(count);
  const partitions: Partition[] = [];
  // (vault, namespace, id) is the order of the index chunks_by_vault_namespace (the rowid ends every index entry).
  // An index without vectors (dimension 0) still gets its rows grouped, for filters.
  const embedding = dimension > 0 ? 'v.embedding' : 'NULL';
  const join = dimension > 0 ? 'JOIN chunk_vectors v ON v.chunk_id = c.id' : '';
  const rows = db
    .prepare(
      `SELECT c.id, c.vault, c.namespace, ${embedding} FROM chunks c INDEXED BY chunks_by_vault_namespace
       ${join} ORDER BY c.vault, c.namespace, c.id`,
    )
    .raw()
    .iterate();
  let i = 0;
  for (const row of rows) {
    if (!Array.isArray(row) || i >= count) break;
    const [chunkId, vault, namespace, embedding] = row;
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
    const last = partitions[partitions.length - 1];
    if (last === undefined || last.vault !== String(vault) || last.namespace !== String(namespace)) {
      partitions.push({ vault: String(vault), namespace: String(namespace), start: i, end: i });
    }
    i += 1;
    if (i % ROWS_PER_STEP === 0) yield;
  }
  return {
    dimension,
    count: i,
    data,
    chunkIds,
    // Each group ends where the next begins.
    partitions: partitions.map((p, k) => ({ ...p, end: partitions[k + 1]?.start ?? i })),
  };
}
