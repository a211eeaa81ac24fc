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
  /** Ascending, so a chunk's row can be found by binary search. */
  readonly chunkIds: Float64Array;
  /** Index into `vaultNames` / `namespaceNames` per row: a filter becomes an integer compare. */
  readonly vaultCodes: Uint16Array;
  readonly namespaceCodes: Uint16Array;
  readonly vaultNames: readonly string[];
  readonly namespaceNames: readonly string[];
}

const HOST_IS_LITTLE_ENDIAN = endianness() === 'LE';

/**
 * Reads all vectors in one consistent snapshot. The stored bytes are
 * little-endian float32, so on little-endian hosts they are copied as bytes.
 */
export function loadVectorMatrix(db: Database.Database, dimension: number): VectorMatrix {
  return db.transaction(() => {
    const count = Number(db.prepare('SELECT count(*) FROM chunk_vectors').pluck().get());
    const data = new Float32Array(count * dimension);
    const bytes = new Uint8Array(data.buffer);
    const chunkIds = new Float64Array(count);
    const vaultCodes = new Uint16Array(count);
    const namespaceCodes = new Uint16Array(count);
    const vaults = new Interner();
    const namespaces = new Interner();
    const rows = db
      .prepare(
        'SELECT v.chunk_id, c.vault, c.namespace, v.embedding FROM chunk_vectors v JOIN chunks c ON c.id = v.chunk_id ORDER BY v.chunk_id',
      )
      .raw()
      .iterate();
    let i = 0;
    for (const row of rows) {
      if (!Array.isArray(row) || i >= count) break;
      const [chunkId, vault, namespace, embedding] = row;
      if (!Buffer.isBuffer(embedding) || embedding.length !== dimension * 4) {
        throw new RagError(
          'ERR_INDEX_SCHEMA',
          `chunk ${String(chunkId)} has a vector of ${String(embedding?.length)} bytes, expected ${dimension * 4}`,
        );
      }
      if (HOST_IS_LITTLE_ENDIAN) bytes.set(embedding, i * dimension * 4);
      else data.set(decodeVector(embedding), i * dimension);
      chunkIds[i] = Number(chunkId);
      vaultCodes[i] = vaults.code(String(vault));
      namespaceCodes[i] = namespaces.code(String(namespace));
      i += 1;
    }
    return {
      dimension,
      count: i,
      data,
      chunkIds,
      vaultCodes,
      namespaceCodes,
      vaultNames: vaults.names,
      namespaceNames: namespaces.names,
    };
  })();
}

class Interner {
  readonly names: string[] = [];
  private readonly codes = new Map<string, number>();

  code(name: string): number {
    let code = this.codes.get(name);
    if (code === undefined) {
      code = this.names.length;
      this.names.push(name);
      this.codes.set(name, code);
    }
    return code;
  }
}
