/**
 * Search latency of `notegate-rag serve`'s search path over a real index file
 * (real schema, real write path, FTS5 trigram): dense, hybrid and hybrid+MMR
 * at 10k and 100k chunks, p50/p95 excluding and including query embedding,
 * against the ceiling of a plain exact scan over a Float32Array in the same
 * run; then sustained requests/s over HTTP with autocannon in a separate process.
 * Text: sentences of the SciFact abstracts (~900 characters a chunk);
 * vectors: synthetic unit vectors around 500 random centres (cos ≈ 0.8).
 *
 * Run: npx tsc -b && node bench/rag/dist/search-latency.js [--sizes 10000,100000] [--queries 60] [--duration 10]
 * (the stand-in model: NOTEGATE_STANDIN_MODELS, a model cache folder; SciFact: the shared folder,
 * NOTEGATE_SHARED_DIR, else ../shared beside the repository)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { closeServer, listen } from '@notegate/kit/http';
import {
  createSearchServer,
  type Embedder,
  findModel,
  IndexSnapshot,
  loadTransformersEmbedder,
  ResidentModel,
  type SearchOptions,
  SnapshotSource,
  searchSnapshot,
} from '@notegate/rag';
import { exactScan, IndexStore, rangesFor } from '@notegate/rag/internals';
import {
  arg,
  printTable,
  seededRandom,
  sharedDir,
  standinModelCache,
  syntheticFile,
  timings,
  unitVector,
  vaultOf,
} from './support.js';

const MODEL = findModel('intfloat/multilingual-e5-small');
const CHUNKS_PER_FILE = 10;
const CENTRES = 500;
const TOP = 8;
const shared = sharedDir();

interface Corpus {
  readonly sentences: readonly string[];
  readonly claims: readonly string[];
  readonly words: readonly string[];
}

function readCorpus(): Corpus {
  const dir = path.join(shared, 'eval', 'scifact');
  const lines = (file: string) => readFileSync(path.join(dir, file), 'utf8').trim().split('\n');
  const texts = lines('corpus.jsonl').map((line) => String(JSON.parse(line).text));
  const sentences = texts.flatMap((t) => t.split(/(?<=\.)\s+/)).filter((s) => s.length > 20);
  const claims = lines('queries.jsonl').map((line) => String(JSON.parse(line).text));
  // Words by frequency: rank 10 (very common) to rank 20,000 (rare), the short queries people type.
  const counts = new Map<string, number>();
  for (const word of texts
    .join(' ')
    .toLowerCase()
    .match(/\p{L}{3,}/gu) ?? [])
    counts.set(word, (counts.get(word) ?? 0) + 1);
  const ranked = [...counts].sort((a, b) => b[1] - a[1]).map(([w]) => w);
  const words = [10, 50, 200, 1000, 5000, 20000].flatMap((rank) => ranked.slice(rank, rank + 2));
  return { sentences, claims, words };
}

function buildIndex(file: string, size: number, corpus: Corpus, random: () => number, centres: Float32Array[]): number {
  if (!MODEL) throw new Error('model table lacks e5-small');
  const started = performance.now();
  const store = IndexStore.open(file, { model: MODEL, nowMs: Date.now() });
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  for (let f = 0; f * CHUNKS_PER_FILE < size; f += 1) {
    const chunks = Array.from({ length: Math.min(CHUNKS_PER_FILE, size - f * CHUNKS_PER_FILE) }, (_, seq) => {
      let text = '';
      while (text.length < 900) text += `${pick(corpus.sentences)} `;
      return {
        seq,
        heading: `Section ${seq}`,
        lineStart: seq * 10 + 1,
        lineEnd: seq * 10 + 9,
        text,
        tokenCount: 200,
        vector: near(pick(centres), random),
      };
    });
    store.replaceFile(
      syntheticFile(vaultOf(f), `ns${f % 10}/note-${f}.md`, `ns${f % 10}`, pick(corpus.sentences).slice(0, 60)),
      chunks,
      0,
    );
  }
  store.finishRun('', '{}', Date.now());
  store.close();
  return performance.now() - started;
}

function near(centre: Float32Array, random: () => number): Float32Array {
  const noise = unitVector(random, centre.length);
  const v = centre.map((c, i) => c + 0.75 * (noise[i] ?? 0));
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
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
  const embedder = await loadTransformersEmbedder(MODEL, standinModelCache(MODEL));
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
      const snapshot = await IndexSnapshot.open(file, MODEL, Date.now);
      console.log(
        `${size} chunks: built in ${(buildMs / 1000).toFixed(1)} s, loaded in ${snapshot.loadDurationMs} ms, backend ${snapshot.vectors.backend}`,
      );
      const all = ['big', 'mid', 'small'];
      const measure = (label: string, run: (i: number) => unknown, withEmbedding = true) => {
        for (let i = 0; i < 3; i += 1) run(i);
        const samples = texts.map((_, i) => {
          const started = performance.now();
          run(i);
          return performance.now() - started;
        });
        const total = samples.map((s, i) => s + (embedding[i] ?? 0));
        rows.push([String(size), label, ...percentiles(samples), ...(withEmbedding ? percentiles(total) : ['–', '–'])]);
      };
      const options = (i: number, extra: Partial<SearchOptions>): SearchOptions => ({
        query: texts[i] ?? '',
        top: TOP,
        vaults: all,
        namespaces: undefined,
        hybrid: false,
        mmr: false,
        mmrLambda: 0.7,
        ...extra,
      });
      const matrix = snapshot.vectors.matrix;
      const plain = exactScan(matrix);
      const everyRow = rangesFor(matrix, all, undefined);
      measure(
        'plain exact scan, Float32Array (ceiling)',
        (i) => plain.topK(vectors[i] ?? new Float32Array(), 50, everyRow),
        false,
      );
      measure('dense', (i) => searchSnapshot(snapshot, vectors[i] ?? new Float32Array(), options(i, {})));
      measure('hybrid', (i) => {
        const started = performance.now();
        const result = searchSnapshot(snapshot, vectors[i] ?? new Float32Array(), options(i, { hybrid: true }));
        const key = `${size}\t${result.lexicalPath}`;
        paths.set(key, [...(paths.get(key) ?? []), performance.now() - started]);
      });
      measure('hybrid + MMR', (i) =>
        searchSnapshot(snapshot, vectors[i] ?? new Float32Array(), options(i, { hybrid: true, mmr: true })),
      );
      measure('hybrid, vault small (1%)', (i) =>
        searchSnapshot(snapshot, vectors[i] ?? new Float32Array(), options(i, { hybrid: true, vaults: ['small'] })),
      );
      measure('hybrid top 50 + MMR', (i) =>
        searchSnapshot(snapshot, vectors[i] ?? new Float32Array(), options(i, { hybrid: true, mmr: true, top: 50 })),
      );
      snapshot.close();
      if (size === sizes[sizes.length - 1]) await loadTest(file, embedder, vectors, duration);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  await embedder.dispose();
  console.log(
    `\nQuery embedding alone (e5-small-sized stand-in, 1 thread): p50 ${percentiles(embedding).join(' ms / p95 ')} ms`,
  );
  console.log(
    `Queries: ${queryCount}, half SciFact claims (natural language), half single words from rank 10 to 20,000; top ${TOP}.`,
  );
  console.log('\nLatency per search in ms (in process, one snapshot, warm):');
  printTable(['chunks', 'mode', 'p50', 'p95', 'p50 incl. embedding', 'p95 incl. embedding'], rows);
  console.log('\nHybrid latency by lexical path (warm-up runs included):');
  printTable(
    ['chunks', 'lexical path', 'searches', 'p50', 'p95'],
    [...paths].map(([key, samples]) => [...key.split('\t'), String(samples.length), ...percentiles(samples)]),
  );
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
    ['hybrid, query embedded (stand-in e5-small)', embedder],
    ['hybrid, embedding skipped (precomputed vectors)', precomputed],
  ] as const) {
    const snapshots = new SnapshotSource({ indexPath: file, model: MODEL });
    await snapshots.start();
    const server = createSearchServer({
      model: ResidentModel.loading(async () => model),
      modelId: MODEL.id,
      snapshots,
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
    await snapshots.close();
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
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'ignore'] });
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
