/**
 * Vector backend choice for the index: sqlite-vec `vec0` versus plain float32
 * BLOBs in an ordinary table, loaded once into one Float32Array and scanned
 * exactly in JS. Top-10 over 10k and 100k synthetic unit vectors (384-d), with
 * the vault/namespace filter applied BEFORE the top-k cut in both.
 *
 * Run: npx tsc -b && node bench/rag/dist/vector-backends.js [--sizes 10000,100000] [--queries 50]
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { seededRandom } from '@notegate/kit/testing';
import { findModel } from '@notegate/rag';
import { exactScan, loadVectorMatrix, openDatabase, rangesFor } from '@notegate/rag/internals';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import {
  arg,
  type Filter,
  mib,
  namespaceOf,
  printTable,
  SYNTHETIC_CHUNKS_PER_FILE,
  timings,
  unitVector,
  vaultOf,
  writeSyntheticIndex,
} from './support.js';

const DIMENSION = 384;
const TOP_K = 10;

const FILTERS: readonly Filter[] = [
  { label: 'no filter (100%)', vaults: ['big', 'mid', 'small'] },
  { label: 'vault mid (9%)', vaults: ['mid'] },
  { label: 'vault small (1%)', vaults: ['small'] },
  { label: 'vault big + ns3 (9%)', vaults: ['big'], namespaces: ['ns3'] },
  { label: 'vaults small,mid (10%)', vaults: ['small', 'mid'] },
];

async function main(): Promise<void> {
  const sizes = arg('--sizes', '10000,100000').split(',').map(Number);
  const queryCount = Number(arg('--queries', '50'));
  const rows: string[][] = [];
  const setupRows: string[][] = [];
  for (const size of sizes) {
    const dir = mkdtempSync(path.join(tmpdir(), 'notegate-vector-bench-'));
    try {
      const random = seededRandom(size);
      const vectors = Array.from({ length: size }, () => unitVector(random, DIMENSION));
      const queries = Array.from({ length: queryCount }, () => unitVector(random, DIMENSION));
      const blob = buildBlobIndex(path.join(dir, 'blob.sqlite'), vectors);
      const vec = buildVec0Index(path.join(dir, 'vec0.sqlite'), vectors);
      setupRows.push([
        String(size),
        'BLOB table + JS scan',
        `${blob.insertMs.toFixed(0)} ms`,
        `${blob.loadMs.toFixed(0)} ms`,
        mib(blob.bytes),
      ]);
      setupRows.push([String(size), 'sqlite-vec vec0', `${vec.insertMs.toFixed(0)} ms`, '–', mib(vec.bytes)]);
      // The server's plain exact scan; the filter becomes row ranges before any dot product.
      const scan = exactScan(blob.matrix);
      for (const filter of FILTERS) {
        const ranges = rangesFor(blob.matrix, filter.vaults, filter.namespaces);
        const js = measure(queries, (q) => scan.topK(q, TOP_K, ranges));
        const v0 = measure(queries, (q) => vec0TopK(vec.db, q, TOP_K, filter));
        const agree = queries.every((q) =>
          sameIds(
            scan.topK(q, TOP_K, ranges).map((hit) => hit.chunkId),
            vec0TopK(vec.db, q, TOP_K, filter),
          ),
        );
        rows.push([String(size), filter.label, fmt(js), fmt(v0), agree ? 'identical' : 'DIFFER']);
      }
      vec.db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  console.log('\nSetup (insert through the real write path / load into one Float32Array / file size):');
  printTable(['vectors', 'backend', 'insert', 'load', 'size on disk'], setupRows);
  console.log(`\nTop-${TOP_K} query latency, median / p95 over ${queryCount} queries (filter applied before top-k):`);
  printTable(['vectors', 'filter', 'BLOB + JS exact scan', 'sqlite-vec vec0', 'top-10 ids'], rows);
}

function buildBlobIndex(file: string, vectors: readonly Float32Array[]) {
  const model = findModel('intfloat/multilingual-e5-small');
  if (!model) throw new Error('model table lacks e5-small');
  const started = performance.now();
  writeSyntheticIndex(file, model, vectors);
  const insertMs = performance.now() - started;
  const db = openDatabase(file, { readonly: true });
  const loadStarted = performance.now();
  const matrix = loadVectorMatrix(db, DIMENSION);
  const loadMs = performance.now() - loadStarted;
  db.close();
  return { matrix, insertMs, loadMs, bytes: fileSize(file) };
}

function buildVec0Index(file: string, vectors: readonly Float32Array[]) {
  const db = new Database(file);
  sqliteVec.load(db);
  db.pragma('journal_mode = WAL');
  const started = performance.now();
  db.exec(`CREATE VIRTUAL TABLE vec USING vec0 (
    chunk_id INTEGER PRIMARY KEY, embedding float[${DIMENSION}] distance_metric=cosine, vault TEXT, namespace TEXT)`);
  const insert = db.prepare('INSERT INTO vec (chunk_id, embedding, vault, namespace) VALUES (?, ?, ?, ?)');
  db.transaction(() => {
    vectors.forEach((vector, i) => {
      const f = Math.floor(i / SYNTHETIC_CHUNKS_PER_FILE);
      insert.run(BigInt(i + 1), vector, vaultOf(f), namespaceOf(f));
    });
  })();
  const insertMs = performance.now() - started;
  db.pragma('wal_checkpoint(TRUNCATE)');
  return { db, insertMs, bytes: fileSize(file) };
}

/** sqlite-vec pushes metadata-column constraints into the KNN scan (site/features/knn.md). */
function vec0TopK(db: Database.Database, query: Float32Array, k: number, filter: Filter): number[] {
  const vaultList = filter.vaults.map(() => '?').join(', ');
  const namespaceClause = filter.namespaces ? ` AND namespace IN (${filter.namespaces.map(() => '?').join(', ')})` : '';
  const sql = `SELECT chunk_id FROM vec WHERE embedding MATCH ? AND k = ? AND vault IN (${vaultList})${namespaceClause}`;
  return db
    .prepare(sql)
    .pluck()
    .all(query, k, ...filter.vaults, ...(filter.namespaces ?? []))
    .map(Number);
}

function measure(queries: readonly Float32Array[], run: (query: Float32Array) => unknown) {
  for (const query of queries.slice(0, 3)) run(query);
  const samples = queries.map((query) => {
    const started = performance.now();
    run(query);
    return performance.now() - started;
  });
  return timings(samples);
}

function sameIds(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((id, i) => id === b[i]);
}

function fmt(t: { medianMs: number; p95Ms: number }): string {
  return `${t.medianMs.toFixed(2)} / ${t.p95Ms.toFixed(2)} ms`;
}

function fileSize(file: string): number {
  const wal = `${file}-wal`;
  let bytes = statSync(file).size;
  try {
    bytes += statSync(wal).size;
  } catch {
    // no WAL file left
  }
  return bytes;
}

await main();
