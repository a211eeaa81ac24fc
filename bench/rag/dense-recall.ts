/**
 * The approximate dense leg against the exact scan (docs/retrieval.md#dense-leg):
 * recall@k of the sign-code search for several candidate counts, on real
 * MiniLM vectors (SciFact sentences as rows, SciFact claims as queries,
 * embedded with the real weights once and kept under BENCH_DIR), with the
 * codes about the mean and, for comparison, the raw signs; and with
 * `--index FILE` (the million-chunk index that writes-at-scale.js builds) the
 * same recall and the time of both scans over that index's vectors.
 *
 * Run: npx tsc -b && node bench/rag/dist/dense-recall.js [--index FILE] [--queries 40]
 * (real weights: node bench/rag/dist/fetch-weights.js; SciFact: NOTEGATE_SHARED_DIR)
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { seededRandom } from '@notegate/kit/testing';
import { findModel, loadTransformersEmbedder, type ModelSpec } from '@notegate/rag';
import {
  exactScan,
  Int8VectorSearch,
  loadVectorMatrix,
  openDatabase,
  quantizeMatrix,
  SignCodeSearch,
  signCodesOf,
  type VectorSearch,
} from '@notegate/rag/internals';
import { readCorpus } from './scifact-index.js';
import { arg, BENCH_DIR, benchModelCache, printTable, timings, unitVector } from './support.js';

type Matrix = Parameters<typeof exactScan>[0];

const EMBEDDED_DIR = path.join(BENCH_DIR, 'dense-recall');
const FACTORS = [2, 5, 10, 20];
const BATCH = 64;

async function main(): Promise<void> {
  const model = findModel('sentence-transformers/all-MiniLM-L6-v2');
  if (!model) throw new Error('MiniLM is not a known model');
  const { rows, queries } = await realVectors(model);
  console.log(
    `\nReal MiniLM vectors: ${rows.count} SciFact sentences, ${queries.length} claims; recall of the top k against the exact scan:\n`,
  );
  printTable(
    ['k', 'candidates', 'share of rows', 'recall, about the mean', 'recall, raw signs'],
    recallRows(rows, queries),
  );
  const indexFile = arg('--index', '');
  if (indexFile !== '') indexRun(indexFile, Number(arg('--queries', '40')));
}

/** SciFact sentences and claims, embedded with the real weights (kept under BENCH_DIR after the first run). */
async function realVectors(model: ModelSpec): Promise<{ rows: Matrix; queries: Float32Array[] }> {
  const rowsFile = path.join(EMBEDDED_DIR, 'sentences.f32');
  const queriesFile = path.join(EMBEDDED_DIR, 'claims.f32');
  if (!existsSync(rowsFile) || !existsSync(queriesFile)) {
    const embedder = await loadTransformersEmbedder(model, benchModelCache());
    const corpus = readCorpus();
    const vectors: Float32Array[] = [];
    for (let i = 0; i < corpus.sentences.length; i += BATCH) {
      vectors.push(...(await embedder.embedTexts(corpus.sentences.slice(i, i + BATCH))));
      process.stderr.write(`\rembedded ${vectors.length} of ${corpus.sentences.length} sentences`);
    }
    const claims: Float32Array[] = [];
    for (const claim of corpus.claims) claims.push(await embedder.embedQuery(claim));
    await embedder.dispose();
    mkdirSync(EMBEDDED_DIR, { recursive: true });
    writeFileSync(rowsFile, joined(vectors));
    writeFileSync(queriesFile, joined(claims));
    process.stderr.write('\n');
  }
  const dimension = model.dimension;
  const data = readFloats(rowsFile);
  const count = data.length / dimension;
  const queryData = readFloats(queriesFile);
  const queries = Array.from({ length: queryData.length / dimension }, (_, i) =>
    queryData.subarray(i * dimension, (i + 1) * dimension),
  );
  const chunkIds = Float64Array.from({ length: count }, (_, i) => i + 1);
  return { rows: { data, dimension, count, chunkIds, partitions: [] }, queries };
}

function recallRows(matrix: Matrix, queries: readonly Float32Array[]): string[][] {
  const everyRow = [[0, matrix.count] as const];
  const exact = exactScan(matrix);
  const aboutMean = signCodesOf(matrix);
  const raw = signCodesOf(matrix, new Float64Array(matrix.dimension));
  const table: string[][] = [];
  for (const k of [10, 100]) {
    const truth = queries.map((query) => exact.topK(query, k, everyRow));
    for (const factor of FACTORS) {
      const recallOf = (codes: ReturnType<typeof signCodesOf>) => {
        const search = SignCodeSearch.over(matrix, codes, (n) => factor * n);
        return meanRecall(
          queries.map((query) => search.topK(query, k, everyRow)),
          truth,
        );
      };
      table.push([
        String(k),
        String(factor * k),
        `${((100 * factor * k) / matrix.count).toFixed(2)}%`,
        recallOf(aboutMean).toFixed(3),
        recallOf(raw).toFixed(3),
      ]);
    }
  }
  return table;
}

/** The million-chunk index's vectors: recall and time of the sign codes (default candidates) against the int8 scan. */
function indexRun(file: string, queryCount: number): void {
  const db = openDatabase(file, { reader: true });
  const dimension = Number(db.prepare("SELECT value FROM meta WHERE key = 'dimension'").pluck().get());
  const matrix = loadVectorMatrix(db, dimension);
  db.close();
  const random = seededRandom(26);
  // Queries near rows of the index (its vectors lie near a few hundred centres, as its searches do).
  const queries = Array.from({ length: queryCount }, () => {
    const row = Math.floor(random() * matrix.count);
    const noise = unitVector(random, dimension);
    const query = Float32Array.from({ length: dimension }, (_, j) => {
      return (matrix.data[row * dimension + j] ?? 0) + 0.6 * (noise[j] ?? 0);
    });
    const norm = Math.hypot(...query);
    return query.map((x) => x / norm);
  });
  const approximate = SignCodeSearch.over(matrix, signCodesOf(matrix));
  const exact = Int8VectorSearch.over(matrix, quantizeMatrix(matrix));
  const rows: string[][] = [];
  for (const k of [10, 200]) {
    const run = (search: VectorSearch) => {
      const samples: number[] = [];
      const hits = queries.map((query) => {
        const startedAt = performance.now();
        const found = search.topK(query, k, [[0, matrix.count]]);
        samples.push(performance.now() - startedAt);
        return found;
      });
      return { hits, time: timings(samples) };
    };
    const exactRun = run(exact);
    const approximateRun = run(approximate);
    const ms = (t: ReturnType<typeof timings>) => `${t.medianMs.toFixed(1)} / ${t.p95Ms.toFixed(1)}`;
    rows.push([
      String(k),
      ms(exactRun.time),
      ms(approximateRun.time),
      meanRecall(approximateRun.hits, exactRun.hits).toFixed(3),
      meanRecall(
        approximateRun.hits,
        exactRun.hits.map((hits) => hits.slice(0, 10)),
      ).toFixed(3),
    ]);
  }
  console.log(`\n${matrix.count} rows of ${file}, ${queryCount} queries, ms p50 / p95:\n`);
  printTable(['k', 'exact int8 scan', 'sign codes', 'recall@k', 'recall@10'], rows);
}

/** The share of each query's true rows that the search found, averaged. */
function meanRecall(found: readonly { row: number }[][], truth: readonly { row: number }[][]): number {
  let sum = 0;
  truth.forEach((expected, i) => {
    const got = new Set((found[i] ?? []).map((hit) => hit.row));
    sum += expected.filter((hit) => got.has(hit.row)).length / expected.length;
  });
  return sum / truth.length;
}

function joined(vectors: readonly Float32Array[]): Uint8Array {
  const out = new Float32Array(vectors.reduce((sum, v) => sum + v.length, 0));
  let at = 0;
  for (const v of vectors) {
    out.set(v, at);
    at += v.length;
  }
  return new Uint8Array(out.buffer);
}

function readFloats(file: string): Float32Array {
  const bytes = readFileSync(file);
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

await main();
