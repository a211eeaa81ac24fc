/**
 * Search latency of `notegate-rag serve`'s search path over a real index file
 * (real schema, real write path, the word and trigram tables): the lexical
 * leg alone, dense, hybrid and hybrid+MMR at 10k and 100k chunks, p50/p95
 * excluding and including query embedding, against the ceiling of a plain
 * exact scan over a Float32Array in the same run. The lexical and hybrid
 * searches run twice per query, interleaved: with the word tier ranked from
 * the in-memory word index and in SQLite (docs/retrieval.md#lexical-leg); the
 * word index's build time and size are printed beside the vectors'. Then
 * sustained requests/s over HTTP with autocannon in a separate process.
 * Text: sentences of the SciFact abstracts (~900 characters a chunk);
 * vectors: synthetic unit vectors around 500 random centres (cos ≈ 0.8).
 * Goals (docs/retrieval.md#benchmarks): lexical p95 ≤ 15 ms, hybrid p95 ≤ 25 ms at 100k chunks.
 *
 * Run: npx tsc -b && taskset -c 0 node bench/rag/dist/search-latency.js [--sizes 10000,100000] [--queries 60] [--duration 10]
 *      [--model sentence-transformers/all-MiniLM-L6-v2: queries embedded by the real weights of fetch-weights.js]
 * (the searches on CPU 0; autocannon is then pinned to CPU 1)
 * (the stand-in model: NOTEGATE_STANDIN_MODELS, a model cache folder; SciFact: the shared folder,
 * NOTEGATE_SHARED_DIR, else ../shared beside the repository)
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { closeServer, listen } from '@notegate/kit/http';
import { seededRandom } from '@notegate/kit/testing';
import {
  createSearchServer,
  type Embedder,
  findModel,
  IndexSnapshot,
  loadTransformersEmbedder,
  SearchIndex,
  type SearchOptions,
  searchSnapshot,
} from '@notegate/rag';
import { exactScan, IndexStore, rangesFor } from '@notegate/rag/internals';
import { CENTRES, ChunkSource, type Corpus, near, readCorpus, writeIndex } from './scifact-index.js';
import { arg, benchModelCache, mib, printTable, standinModelCache, timings, unitVector } from './support.js';

/** `--model sentence-transformers/all-MiniLM-L6-v2`: the real weights (fetch-weights.js) embed the queries. */
const MODEL_ID = arg('--model', 'intfloat/multilingual-e5-small');
const MODEL = findModel(MODEL_ID);
const REAL_WEIGHTS = MODEL_ID === 'sentence-transformers/all-MiniLM-L6-v2';
const QUERY_MODEL = REAL_WEIGHTS ? `${MODEL_ID}, real weights` : `${MODEL_ID}-sized stand-in`;
const TOP = 8;

function buildIndex(file: string, size: number, corpus: Corpus, random: () => number, centres: Float32Array[]): number {
  if (!MODEL) throw new Error('model table lacks e5-small');
  const started = performance.now();
  const store = IndexStore.open(file, { model: MODEL, nowMs: Date.now() });
  writeIndex(store, size, new ChunkSource(corpus, random, centres, 'sentences'));
  store.finishRun('', '{}', Date.now());
  store.close();
  return performance.now() - started;
}

function percentiles(samples: readonly number[]): string[] {
  const t = timings(samples);
  return [t.medianMs.toFixed(2), t.p95Ms.toFixed(2)];
}

async function main(): Promise<void> {
  if (!MODEL) throw new Error('model table lacks e5-small');
  const sizes = arg('--sizes', '10000,100000').split(',').map(Number);
  const queryCount = Number(arg('--queries', '60'));
  const duration = Number(arg('--duration', '10'));
  const corpus = readCorpus();
  const random = seededRandom(42);
  const centres = Array.from({ length: CENTRES }, () => unitVector(random, MODEL.dimension));
  const texts = Array.from({ length: queryCount }, (_, i) =>
    i % 2 === 0 ? (corpus.claims[i * 7] ?? 'x') : (corpus.words[i % corpus.words.length] ?? 'x'),
  );
  const vectors = texts.map(() => near(centres[Math.floor(random() * CENTRES)] ?? new Float32Array(384), random));
  const embedder = await loadTransformersEmbedder(MODEL, REAL_WEIGHTS ? benchModelCache() : standinModelCache(MODEL));
  const embedMs = [];
  for (const text of [...texts.slice(0, 3), ...texts]) {
    const started = performance.now();
    await embedder.embedQuery(text);
    embedMs.push(performance.now() - started);
  }
  const embedding = embedMs.slice(3);
  const rows: string[][] = [];
  const paths = new Map<string, number[]>();
  for (const size of sizes) {
    const dir = mkdtempSync(path.join(tmpdir(), 'notegate-search-bench-'));
    try {
      const file = path.join(dir, 'index.sqlite');
      const buildMs = buildIndex(file, size, corpus, random, centres);
      const snapshot = await IndexSnapshot.open(file, { model: MODEL });
      const sqlite = await IndexSnapshot.open(file, { model: MODEL, memoryWords: false });
      console.log(
        `${size} chunks: built in ${(buildMs / 1000).toFixed(1)} s, loaded in ${snapshot.loadDurationMs} ms, backend ${snapshot.vectorBackend}`,
      );
      console.log(`  ${describeWordIndex(snapshot)}`);
      const all = ['big', 'mid', 'small'];
      const measure = (
        label: string,
        run: (i: number) => unknown,
        withEmbedding = true,
        queries: readonly number[] = texts.map((_, i) => i),
      ) => {
        for (let i = 0; i < 3; i += 1) run(i);
        const samples = queries.map((i) => {
          const started = performance.now();
          run(i);
          return performance.now() - started;
        });
        record(label, samples, withEmbedding, queries);
      };
      const record = (
        label: string,
        samples: readonly number[],
        withEmbedding: boolean,
        queries: readonly number[],
      ) => {
        const total = samples.map((s, k) => s + (embedding[queries[k] ?? 0] ?? 0));
        rows.push([String(size), label, ...percentiles(samples), ...(withEmbedding ? percentiles(total) : ['–', '–'])]);
      };
      /** The same searches on both snapshots, alternating which goes first: the word tier from memory and in SQLite. */
      const compare = (
        label: string,
        run: (on: IndexSnapshot, i: number) => unknown,
        withEmbedding = true,
        queries: readonly number[] = texts.map((_, i) => i),
      ) => {
        for (let i = 0; i < 3; i += 1) {
          run(snapshot, i);
          run(sqlite, i);
        }
        const fromMemory: number[] = [];
        const inSqlite: number[] = [];
        for (const [k, i] of queries.entries()) {
          for (const [on, samples] of k % 2 === 0
            ? ([
                [snapshot, fromMemory],
                [sqlite, inSqlite],
              ] as const)
            : ([
                [sqlite, inSqlite],
                [snapshot, fromMemory],
              ] as const)) {
            const started = performance.now();
            run(on, i);
            samples.push(performance.now() - started);
          }
        }
        record(`${label}, word tier in memory`, fromMemory, withEmbedding, queries);
        record(`${label}, word tier in SQLite`, inSqlite, withEmbedding, queries);
      };
      const options = (i: number, extra: Partial<SearchOptions>): SearchOptions => ({
        query: texts[i] ?? '',
        top: TOP,
        vaults: all,
        namespaces: undefined,
        mode: 'dense',
        mmr: false,
        mmrLambda: 0.7,
        ...extra,
      });
      const claims = texts.flatMap((_, i) => (i % 2 === 0 ? [i] : []));
      const words = texts.flatMap((_, i) => (i % 2 === 1 ? [i] : []));
      const matrix = snapshot.segments.stateAt(0).segment.matrix;
      const plain = exactScan(matrix);
      const everyRow = rangesFor(matrix, all, undefined);
      measure(
        'plain exact scan, Float32Array (ceiling)',
        (i) => plain.topK(vectors[i] ?? new Float32Array(), 50, everyRow),
        false,
      );
      const lexical = (on: IndexSnapshot, i: number, extra: Partial<SearchOptions> = {}) =>
        searchSnapshot(on, undefined, options(i, { mode: 'lexical', ...extra }));
      const hybrid = (on: IndexSnapshot, i: number, extra: Partial<SearchOptions> = {}) =>
        searchSnapshot(on, vectors[i] ?? new Float32Array(), options(i, { mode: 'hybrid', ...extra }));
      compare('lexical leg alone', (on, i) => lexical(on, i), false);
      compare('lexical, claims only', (on, i) => lexical(on, i), false, claims);
      compare('lexical, single words only', (on, i) => lexical(on, i), false, words);
      compare('lexical, vault small (1%)', (on, i) => lexical(on, i, { vaults: ['small'] }), false);
      measure('dense', (i) => searchSnapshot(snapshot, vectors[i] ?? new Float32Array(), options(i, {})));
      compare('hybrid', (on, i) => {
        const started = performance.now();
        const result = hybrid(on, i);
        if (on !== snapshot) return;
        const key = `${size}\t${result.lexicalTiers.join('+') || 'none'}`;
        paths.set(key, [...(paths.get(key) ?? []), performance.now() - started]);
      });
      compare('hybrid + MMR', (on, i) => hybrid(on, i, { mmr: true }));
      compare('hybrid, vault small (1%)', (on, i) => hybrid(on, i, { vaults: ['small'] }));
      compare('hybrid top 50 + MMR', (on, i) => hybrid(on, i, { mmr: true, top: 50 }));
      snapshot.close();
      sqlite.close();
      if (size === sizes[sizes.length - 1]) await loadTest(file, embedder, vectors, duration);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  await embedder.dispose();
  console.log(
    `\nQuery embedding alone (${QUERY_MODEL}, 1 thread): p50 ${percentiles(embedding).join(' ms / p95 ')} ms`,
  );
  console.log(
    `Queries: ${queryCount}, half SciFact claims (natural language), half single words from rank 10 to 20,000; top ${TOP}.`,
  );
  console.log('\nLatency per search in ms (in process, one snapshot, warm):');
  printTable(['chunks', 'mode', 'p50', 'p95', 'p50 incl. embedding', 'p95 incl. embedding'], rows);
  console.log('\nHybrid latency by the lexical tiers that contributed (word tier in memory, warm-up runs included):');
  printTable(
    ['chunks', 'lexical tiers', 'searches', 'p50', 'p95'],
    [...paths].map(([key, samples]) => [...key.split('\t'), String(samples.length), ...percentiles(samples)]),
  );
}

/**
 * The word index beside the vectors: build time (in a worker thread) and the bytes it holds, typed
 * arrays exactly, term strings estimated as V8 stores them (a header, then one or two bytes a character).
 */
function describeWordIndex(snapshot: IndexSnapshot): string {
  const { load } = snapshot;
  const state = load.kind === 'whole' ? load.wordIndex : undefined;
  const postings = snapshot.segments.stateAt(0).segment.words;
  if (state?.kind !== 'ready' || postings === undefined) {
    return `no word index${state?.kind === 'unavailable' ? `: ${state.reason}` : ''}`;
  }
  const stringBytes = postings.terms.reduce(
    (sum, term) => sum + 16 + (/^[\0-\xff]*$/.test(term) ? 1 : 2) * term.length,
    0,
  );
  return [
    `index loaded whole in ${(state.buildMs / 1000).toFixed(1)} s (worker thread; the word index checked against SQLite):`,
    `${postings.terms.length} terms (~${mib(stringBytes)}), ${postings.rows.length} postings, ${mib(postings.byteLength)} of typed arrays;`,
    `the vectors: ${mib(snapshot.segments.stateAt(0).segment.matrix.data.byteLength)} float32; snapshot ready in ${snapshot.loadDurationMs} ms`,
  ].join(' ');
}

/** Sustained throughput of POST /search over loopback, autocannon in its own process. */
async function loadTest(
  file: string,
  embedder: Embedder,
  vectors: readonly Float32Array[],
  seconds: number,
): Promise<void> {
  if (!MODEL) return;
  let next = 0;
  const precomputed: Embedder = {
    ...embedder,
    embedQuery: async () => vectors[next++ % vectors.length] ?? new Float32Array(),
  };
  const results: string[][] = [];
  for (const [label, model] of [
    [`hybrid, query embedded (${QUERY_MODEL})`, embedder],
    ['hybrid, embedding skipped (precomputed vectors)', precomputed],
  ] as const) {
    // The embedder outlives each server (the caller disposes it once).
    const borrowed: Embedder = { ...model, dispose: async () => {} };
    const index = new SearchIndex({
      indexPath: file,
      model: MODEL,
      modelCacheDir: '',
      loadEmbedder: async () => borrowed,
    });
    await index.start();
    await index.modelSettled();
    const server = createSearchServer({
      index,
      indexPath: file,
      vaults: ['big', 'mid', 'small'],
      bindHost: '127.0.0.1',
      log: () => {},
      version: 'bench',
    });
    const url = await listen(server, '127.0.0.1', 0);
    const report = await autocannon(new URL('/search', url), seconds);
    results.push([label, report.requests, report.p50, report.p97_5, report.errors]);
    await closeServer(server);
    await index.close();
  }
  console.log(`\nSustained load, ${seconds} s, 4 connections, autocannon in a separate process:`);
  printTable(['server', 'requests/s', 'latency p50 ms', 'latency p97.5 ms', 'non-2xx + errors'], results);
}

function autocannon(url: URL, seconds: number): Promise<Record<'requests' | 'p50' | 'p97_5' | 'errors', string>> {
  const bin = path.join(path.dirname(createRequire(import.meta.url).resolve('autocannon')), 'autocannon.js');
  const body = JSON.stringify({ query: 'cardiovascular risk in patients', top: TOP });
  const args = [
    bin,
    '-c',
    '4',
    '-d',
    String(seconds),
    '-m',
    'POST',
    '-H',
    'content-type=application/json',
    '-b',
    body,
    '--json',
    url.href,
  ];
  // On its own core when taskset is there (the searches run on CPU 0: see Run above).
  const pinned = spawnSync('taskset', ['-c', '1', 'true']).status === 0;
  return new Promise((resolve, reject) => {
    const child = pinned
      ? spawn('taskset', ['-c', '1', process.execPath, ...args], { stdio: ['ignore', 'pipe', 'ignore'] })
      : spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', () => {
      const r = JSON.parse(out);
      resolve({
        requests: Number(r.requests.average).toFixed(1),
        p50: String(r.latency.p50),
        p97_5: String(r.latency.p97_5),
        errors: String(Number(r.non2xx) + Number(r.errors)),
      });
    });
  });
}

await main();
