/**
 * End-to-end indexing throughput of `notegate-rag index` on the real-notes
 * eval vault (1,873 files) with the e5-small-sized stand-in model, against raw
 * ONNX Runtime inference over the very same token batches in the same run.
 * Also: a no-op re-index, peak RSS, index size per chunk, and (in child
 * processes) embedding speed and memory by batch size and thread count.
 *
 * Run: npx tsc -b && node bench/rag/dist/index-throughput.js [--vault DIR] [--batch N] [--probe-chunks 384] [--probe-batches 1,2,4,8,16,32]
 *      [--model sentence-transformers/all-MiniLM-L6-v2: the real weights of fetch-weights.js instead of the e5-small stand-in]
 *      (--probes: also probe batch sizes and thread counts in child processes;
 *       --probes-only: only those probes, on chunks of the vault, no index run)
 * (the stand-in model: NOTEGATE_STANDIN_MODELS, a model cache folder; the eval vault: the shared
 * folder, NOTEGATE_SHARED_DIR, else ../shared beside the repository)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Tensor } from '@huggingface/transformers';
import {
  DEFAULT_BATCH_SIZE,
  type Embedder,
  findModel,
  loadRagConfig,
  loadTransformersEmbedder,
  noDownloads,
  type RagConfig,
  runIndex,
} from '@notegate/rag';
import {
  chunkerSettingsFor,
  chunkNote,
  findRepositoryRoot,
  loadPretrained,
  openDatabase,
  walkVault,
} from '@notegate/rag/internals';
import { arg, benchModelCache, mib, printTable, sharedDir, standinModelCache } from './support.js';

/** `--model sentence-transformers/all-MiniLM-L6-v2`: the real weights (fetch-weights.js); default the e5-small stand-in. */
const MODEL_ID = arg('--model', 'intfloat/multilingual-e5-small');
const here = path.dirname(fileURLToPath(import.meta.url));

const model = findModel(MODEL_ID);
if (!model) throw new Error(`unknown model ${MODEL_ID}`);
const cache = MODEL_ID === 'sentence-transformers/all-MiniLM-L6-v2' ? benchModelCache() : standinModelCache(model);

interface Interleaved {
  readonly batches: string[][];
  /** Time inside the indexer's own embedTexts (tokenize, ORT, pooling). */
  embedMs: number;
  /** Time inside raw `session.run` over the same batches. */
  rawRunMs: number;
  /** Everything the raw side cost (its tokenization too): subtracted from the wall clock. */
  rawTotalMs: number;
}

/**
 * After each batch the indexer embeds, ONNX Runtime's session runs the very
 * same batch directly. Both sides see the same machine load at the same
 * moment, which a shared 2-core host makes essential for a fair ratio.
 */
function interleaved(embedder: Embedder, raw: RawOrt, stats: Interleaved): Embedder {
  return {
    ...embedder,
    embedTexts: async (inputs) => {
      stats.batches.push([...inputs]);
      const started = performance.now();
      const vectors = await embedder.embedTexts(inputs);
      const rawStarted = performance.now();
      stats.embedMs += rawStarted - started;
      stats.rawRunMs += await raw.run(inputs);
      stats.rawTotalMs += performance.now() - rawStarted;
      return vectors;
    },
  };
}

interface RawOrt {
  /** Tokenizes like the indexer, then times only `session.run`. */
  run(inputs: readonly string[]): Promise<number>;
  dispose(): Promise<void>;
}

async function loadRawOrt(): Promise<RawOrt> {
  if (!model) throw new Error('no model');
  const spec = model;
  // The very loader (offline settings, q8, one thread) the indexer's embedder uses.
  const { tokenizer, onnx } = await loadPretrained(spec, cache);
  const session = onnx.sessions.model;
  return {
    run: async (inputs) => {
      const encoded: unknown = tokenizer([...inputs], {
        padding: true,
        truncation: true,
        max_length: spec.windowTokens,
      });
      const feeds: Record<string, unknown> = {};
      if (encoded instanceof Object) {
        for (const [name, tensor] of Object.entries(encoded))
          if (tensor instanceof Tensor) feeds[name] = tensor.ort_tensor;
      }
      const started = performance.now();
      await session.run(feeds);
      return performance.now() - started;
    },
    dispose: async () => {
      await onnx.dispose();
    },
  };
}

/** Runs the CLI in a child process and reads its peak RSS (kB) from a line it prints on exit. */
function cliRun(args: readonly string[]): { ms: number; code: number | null; maxRssKb: number; stdout: string } {
  const cli = pathToFileURL(path.join(findRepositoryRoot(here), 'rag', 'dist', 'src', 'cli', 'main.js')).href;
  const script = `process.argv = [process.argv[0], 'notegate-rag', ...process.argv.slice(1)];
process.on('exit', () => process.stderr.write('maxrss ' + process.resourceUsage().maxRSS + '\\n'));
await import(${JSON.stringify(cli)});`;
  const started = performance.now();
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script, ...args], {
    env: { ...process.env, NOTEGATE_MODEL_CACHE: cache },
    encoding: 'utf8',
  });
  const ms = performance.now() - started;
  const maxRssKb = Number(/maxrss (\d+)/.exec(child.stderr)?.[1] ?? Number.NaN);
  return { ms, code: child.status, maxRssKb, stdout: child.stdout };
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

/** A config in `work` that indexes `vault` (vault id `til`) into `work/index.sqlite`. */
function benchConfig(work: string, vault: string): RagConfig {
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
  return loadRagConfig(configPath, process.env.HOME ?? '/');
}

/** Child mode: embed the first chunks of a recorded corpus with one batch size, print chunks/s and peak RSS. */
async function probe(file: string, batchSize: number, threads: number): Promise<void> {
  if (!model) throw new Error('no model');
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

/** Embedding speed and memory by batch size and thread count, each in a fresh process. */
function runProbes(work: string, chunkInputs: readonly string[]): void {
  // A sample spread over the whole run (every n-th chunk), longest first as planBatches orders them.
  const all = chunkInputs;
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
}

/** `--probes-only`: chunk the vault with the real chunker (no index run) and probe batch sizes. */
async function probesOnly(): Promise<void> {
  if (!model) throw new Error('no model');
  const vault = path.resolve(arg('--vault', path.join(sharedDir(), 'eval', 'vault-til')));
  const work = mkdtempSync(path.join(tmpdir(), 'notegate-probe-bench-'));
  try {
    // The files an index run would read: the indexer's own walk of the vault.
    const config = benchConfig(work, vault);
    const embedder = await loadTransformersEmbedder(model, cache);
    const settings = chunkerSettingsFor(model);
    const inputs: string[] = [];
    for (const resolved of config.vaults) {
      for (const file of walkVault(resolved, config.diode).files) {
        const note = chunkNote(readFileSync(file.realPath, 'utf8'), file.path, settings, (t) =>
          embedder.countTokens(t),
        );
        inputs.push(...note.chunks.map((chunk) => chunk.embedText));
      }
    }
    await embedder.dispose();
    console.log(`Vault ${vault}: ${inputs.length} chunks`);
    runProbes(work, inputs);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const vault = path.resolve(arg('--vault', path.join(sharedDir(), 'eval', 'vault-til')));
  const work = mkdtempSync(path.join(tmpdir(), 'notegate-index-bench-'));
  try {
    const config = benchConfig(work, vault);
    const { configPath } = config;
    const options = {
      config,
      modelCacheDir: cache,
      download: noDownloads(new URL('http://127.0.0.1:9/')),
    };
    const stats: Interleaved = { batches: [], embedMs: 0, rawRunMs: 0, rawTotalMs: 0 };
    const raw = await loadRawOrt();
    const started = performance.now();
    const full = await runIndex({
      ...options,
      batchSize: Number(arg('--batch', String(DEFAULT_BATCH_SIZE))),
      loadEmbedder: async (m, dir) => interleaved(await loadTransformersEmbedder(m, dir), raw, stats),
    });
    const e2eMs = performance.now() - started - stats.rawTotalMs;
    await raw.dispose();
    const chunks = full.chunksEmbedded;

    const noopStarted = performance.now();
    const noop = await runIndex(options);
    const noopMs = performance.now() - noopStarted;
    const cliNoop = cliRun(['index', '--config', configPath, '--quiet']);
    const cliRebuild = cliRun(['index', '--config', configPath, '--quiet', '--rebuild', '--json']);
    const rebuildChunks = Number(/"chunks_embedded": (\d+)/.exec(cliRebuild.stdout)?.[1] ?? Number.NaN);
    const bytes = sizeOf(config.indexPath);
    const rate = (count: number, ms: number) =>
      `${((1000 * count) / ms).toFixed(1)} chunks/s (${(ms / 1000).toFixed(1)} s)`;

    console.log(
      `\nModel ${MODEL_ID}; vault ${vault}: ${full.new} files indexed, ${chunks} chunks, ${full.skipped.length} skipped, ${full.failed.length} failed; batch size ${arg('--batch', String(DEFAULT_BATCH_SIZE))}`,
    );
    printTable(
      ['measure', 'value', 'goal'],
      [
        ['end to end, in process (walk, read, chunk, tokenize, embed, store)', rate(chunks, e2eMs), ''],
        ['  of which inside embedTexts (tokenize, ORT, pooling)', rate(chunks, stats.embedMs), ''],
        ['raw ONNX Runtime session.run, same batches, interleaved', rate(chunks, stats.rawRunMs), ''],
        ['end to end / raw', `${((100 * stats.rawRunMs) / e2eMs).toFixed(1)} %`, '>= 90 %'],
        ['raw loop with its tokenization (tokenizer + session.run), interleaved', rate(chunks, stats.rawTotalMs), ''],
        ['end to end / raw loop with tokenization', `${((100 * stats.rawTotalMs) / e2eMs).toFixed(1)} %`, ''],
        ['CLI --rebuild, whole process', `${rate(rebuildChunks, cliRebuild.ms)} exit ${cliRebuild.code}`, ''],
        ['CLI --rebuild, peak RSS', mib(cliRebuild.maxRssKb * 1024), '< 1.5 GB'],
        ['no-op re-index, in process', `${noopMs.toFixed(0)} ms (${noop.unchanged} unchanged)`, '< 1 s'],
        ['no-op re-index, CLI process incl. start-up', `${cliNoop.ms.toFixed(0)} ms (exit ${cliNoop.code})`, '< 1 s'],
        ['index size on disk', `${mib(bytes)}, ${(bytes / chunks / 1024).toFixed(2)} KiB per chunk`, ''],
      ],
    );
    console.log('\nIndex size by table (dbstat):');
    printTable(
      ['table or index', 'size', 'per chunk'],
      tableSizes(config.indexPath).map(([name, size]) => [name, mib(size), `${(size / chunks).toFixed(0)} B`]),
    );

    if (process.argv.includes('--probes')) runProbes(work, stats.batches.flat());
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--probe') {
  await probe(process.argv[3] ?? '', Number(process.argv[4]), Number(process.argv[5]));
} else if (process.argv.includes('--probes-only')) {
  await probesOnly();
} else {
  await main();
}
