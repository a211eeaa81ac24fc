/**
 * End-to-end indexing throughput of `notegate-rag index` on the real-notes
 * eval vault (1,873 files) with the e5-small-sized stand-in model, against raw
 * ONNX Runtime inference over the very same token batches in the same run.
 * Also: a no-op re-index, peak RSS, index size per chunk, and (in child
 * processes) embedding speed and memory by batch size and thread count.
 *
 * Run: npx tsc -b && node bench/rag/dist/index-throughput.js [--vault DIR] [--batch N] [--probe-chunks 384] [--probe-batches 1,2,4,8,16,32]
 * (the shared folder: NOTEGATE_SHARED_DIR, else ../shared beside the repository)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AutoModel, AutoTokenizer, Tensor } from '@huggingface/transformers';
import {
  DEFAULT_BATCH_SIZE,
  type Embedder,
  findModel,
  findRepositoryRoot,
  loadRagConfig,
  loadTransformersEmbedder,
  openDatabase,
  runIndex,
} from '@notegate/rag';
import { mib, printTable } from './support.js';

const MODEL_ID = 'intfloat/multilingual-e5-small';
const here = path.dirname(fileURLToPath(import.meta.url));

function arg(name: string, fallback: string): string {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : (process.argv[at + 1] ?? fallback);
}

function sharedDir(): string {
  return process.env.NOTEGATE_SHARED_DIR ?? path.join(findRepositoryRoot(here), '..', 'shared');
}

const model = findModel(MODEL_ID);
if (!model) throw new Error(`unknown model ${MODEL_ID}`);
const cache = path.join(sharedDir(), 'models-standin');

/** Wraps the real embedder to record each batch it is given and the time spent in it. */
function recording(embedder: Embedder, batches: string[][], spent: { ms: number }): Embedder {
  return {
    ...embedder,
    embedTexts: async (inputs) => {
      batches.push([...inputs]);
      const started = performance.now();
      try {
        return await embedder.embedTexts(inputs);
      } finally {
        spent.ms += performance.now() - started;
      }
    },
  };
}

/** Runs ONNX Runtime's session directly over the recorded batches; only `session.run` is timed. */
async function rawOrtSeconds(batches: readonly string[][]): Promise<number> {
  if (!model) throw new Error('no model');
  const tokenizer = await AutoTokenizer.from_pretrained(model.hubRepo, { local_files_only: true });
  const onnx = await AutoModel.from_pretrained(model.hubRepo, {
    local_files_only: true,
    dtype: 'q8',
    device: 'cpu',
    session_options: { intraOpNumThreads: 1 },
  });
  const session = onnx.sessions.model;
  let ms = 0;
  for (const batch of batches) {
    const encoded: unknown = tokenizer(batch, { padding: true, truncation: true, max_length: model.windowTokens });
    const feeds: Record<string, unknown> = {};
    if (encoded instanceof Object) {
      for (const [name, tensor] of Object.entries(encoded))
        if (tensor instanceof Tensor) feeds[name] = tensor.ort_tensor;
    }
    const started = performance.now();
    await session.run(feeds);
    ms += performance.now() - started;
  }
  await onnx.dispose();
  return ms / 1000;
}

function sizeOf(file: string): number {
  let bytes = 0;
  for (const suffix of ['', '-wal']) {
    try {
      bytes += statSync(file + suffix).size;
    } catch {
      // absent
    }
  }
  return bytes;
}

function tableSizes(indexPath: string): [string, number][] {
  const db = openDatabase(indexPath, { readonly: true });
  try {
    const rows = db.prepare('SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC').all();
    return rows.flatMap((row): [string, number][] =>
      row instanceof Object && 'name' in row && 'bytes' in row ? [[String(row.name), Number(row.bytes)]] : [],
    );
  } finally {
    db.close();
  }
}

/** Child mode: embed the first chunks of a recorded corpus with one batch size, print chunks/s and peak RSS. */
async function probe(file: string, batchSize: number, threads: number): Promise<void> {
  if (!model) throw new Error('no model');
  const { readFileSync } = await import('node:fs');
  const texts: unknown = JSON.parse(readFileSync(file, 'utf8'));
  if (!Array.isArray(texts)) throw new Error('bad probe file');
  const inputs = texts.map(String);
  const embedder = await loadTransformersEmbedder(model, cache, { intraOpThreads: threads });
  await embedder.embedTexts(inputs.slice(0, batchSize));
  const started = performance.now();
  for (let i = 0; i < inputs.length; i += batchSize) await embedder.embedTexts(inputs.slice(i, i + batchSize));
  const seconds = (performance.now() - started) / 1000;
  console.log(JSON.stringify({ rate: inputs.length / seconds, rssKb: process.resourceUsage().maxRSS }));
}

async function main(): Promise<void> {
  const vault = path.resolve(arg('--vault', path.join(sharedDir(), 'eval', 'vault-til')));
  const work = mkdtempSync(path.join(tmpdir(), 'notegate-index-bench-'));
  try {
    const configPath = path.join(work, 'vaults.json');
    writeFileSync(
      configPath,
      JSON.stringify({
        embed_model: MODEL_ID,
        allowed_roots: [vault],
        index_path: path.join(work, 'index.sqlite'),
        vaults: [{ id: 'til', path: vault }],
      }),
    );
    const config = loadRagConfig(configPath, process.env.HOME ?? '/');
    const batches: string[][] = [];
    const spent = { ms: 0 };
    let loadMs = 0;
    const options = {
      config,
      modelCacheDir: cache,
      download: {
        hubUrl: new URL('http://127.0.0.1:9/'),
        fetch: () => Promise.reject(new Error('offline')),
        enabled: false,
      },
    };

    const started = performance.now();
    const full = await runIndex({
      ...options,
      batchSize: Number(arg('--batch', String(DEFAULT_BATCH_SIZE))),
      loadEmbedder: async (m, dir) => {
        const loadStarted = performance.now();
        const embedder = await loadTransformersEmbedder(m, dir);
        loadMs = performance.now() - loadStarted;
        return recording(embedder, batches, spent);
      },
    });
    const fullSeconds = (performance.now() - started) / 1000;
    const peakRssKb = process.resourceUsage().maxRSS;

    const noopStarted = performance.now();
    const noop = await runIndex(options);
    const noopMs = performance.now() - noopStarted;
    const cliStarted = performance.now();
    const cli = spawnSync(
      process.execPath,
      [
        path.join(findRepositoryRoot(here), 'rag', 'dist', 'src', 'cli', 'main.js'),
        'index',
        '--config',
        configPath,
        '--quiet',
      ],
      {
        env: { ...process.env, NOTEGATE_MODEL_CACHE: cache },
        encoding: 'utf8',
      },
    );
    const cliMs = performance.now() - cliStarted;

    const rawSeconds = await rawOrtSeconds(batches);
    const chunks = full.chunksEmbedded;
    const bytes = sizeOf(config.indexPath);

    console.log(
      `\nVault ${vault}: ${full.new} files indexed, ${chunks} chunks, ${full.skipped.length} skipped, ${full.failed.length} failed`,
    );
    printTable(
      ['measure', 'value', 'goal'],
      [
        [
          'end to end (walk, chunk, tokenize, embed, store)',
          `${(chunks / fullSeconds).toFixed(1)} chunks/s (${fullSeconds.toFixed(1)} s)`,
          '',
        ],
        [
          'end to end, model load excluded',
          `${(chunks / (fullSeconds - loadMs / 1000)).toFixed(1)} chunks/s (load ${loadMs.toFixed(0)} ms)`,
          '',
        ],
        ['inside embedTexts (tokenize + ORT + pooling)', `${(chunks / (spent.ms / 1000)).toFixed(1)} chunks/s`, ''],
        [
          'raw ONNX Runtime session.run, same batches',
          `${(chunks / rawSeconds).toFixed(1)} chunks/s (${rawSeconds.toFixed(1)} s)`,
          '',
        ],
        ['end to end / raw', `${((100 * rawSeconds) / fullSeconds).toFixed(1)} %`, '>= 85 %'],
        [
          'end to end (model load excluded) / raw',
          `${((100 * rawSeconds) / (fullSeconds - loadMs / 1000)).toFixed(1)} %`,
          '',
        ],
        ['no-op re-index, in process', `${noopMs.toFixed(0)} ms (${noop.unchanged} unchanged)`, '< 1 s'],
        ['no-op re-index, CLI process incl. start-up', `${cliMs.toFixed(0)} ms (exit ${cli.status})`, '< 1 s'],
        ['peak RSS (full index run)', mib(peakRssKb * 1024), '< 1.5 GB'],
        ['index size on disk', `${mib(bytes)}, ${(bytes / chunks / 1024).toFixed(2)} KiB per chunk`, ''],
      ],
    );
    console.log('\nIndex size by table (dbstat):');
    printTable(
      ['table or index', 'size', 'per chunk'],
      tableSizes(config.indexPath).map(([name, size]) => [name, mib(size), `${(size / chunks).toFixed(0)} B`]),
    );

    // A sample spread over the whole run (every n-th chunk), longest first as planBatches orders them.
    const all = batches.flat();
    const probeChunks = Math.min(all.length, Number(arg('--probe-chunks', '384')));
    const stride = all.length / Math.max(1, probeChunks);
    const sample = Array.from({ length: probeChunks }, (_, i) => all[Math.floor(i * stride)] ?? '').sort(
      (a, b) => b.length - a.length,
    );
    const probeFile = path.join(work, 'probe.json');
    writeFileSync(probeFile, JSON.stringify(sample));
    const probeRows: string[][] = [];
    const probes: [number, number][] = [
      ...arg('--probe-batches', '1,2,4,8,16,32')
        .split(',')
        .map((size): [number, number] => [Number(size), 1]),
      [1, 2],
      [8, 2],
    ];
    for (const [batchSize, threads] of probes) {
      const child = spawnSync(
        process.execPath,
        [fileURLToPath(import.meta.url), '--probe', probeFile, String(batchSize), String(threads)],
        {
          env: { ...process.env },
          encoding: 'utf8',
        },
      );
      const result: unknown = JSON.parse(child.stdout.trim().split('\n').at(-1) ?? '{}');
      if (result instanceof Object && 'rate' in result && 'rssKb' in result) {
        probeRows.push([
          String(batchSize),
          String(threads),
          `${Number(result.rate).toFixed(1)}`,
          mib(Number(result.rssKb) * 1024),
        ]);
      }
    }
    console.log(`\nEmbedding ${sample.length} chunks sampled over the run, longest first (each row a fresh process):`);
    printTable(['batch size', 'ORT threads', 'chunks/s', 'peak RSS'], probeRows);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--probe') {
  await probe(process.argv[3] ?? '', Number(process.argv[4]), Number(process.argv[5]));
} else {
  await main();
}
