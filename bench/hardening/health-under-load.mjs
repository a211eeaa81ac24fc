#!/usr/bin/env node
// /health latency of `notegate-rag serve` while 32 long searches run at once, this checkout against
// another built one (--before DIR). The index: SciFact abstracts (one note each), embedded with the
// stand-in multilingual-e5-small (real architecture and cost, random weights), built once by this
// checkout's `notegate-rag index`. Queries: a 60 KiB paste of corpus words (refused with 400 by a server
// that caps queries) and a query at the cap, 1,000 characters / 64 terms.
//   node bench/hardening/health-under-load.mjs [--before DIR]   (NOTEGATE_SHARED_DIR: the shared folder)
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { checkouts, ms, printTable, quantile, ragCli, sleep, startServer } from './support.mjs';

const FILES = Number(process.env.BENCH_FILES ?? 400);
const PARALLEL = 32;
const LOAD_MS = Number(process.env.BENCH_LOAD_MS ?? 6_000);
const HEALTH_EVERY_MS = 25;

const versions = checkouts();
const after = versions.at(-1).root;
const shared = process.env.NOTEGATE_SHARED_DIR ?? join(after, '..', 'shared');
const dir = mkdtempSync(join(tmpdir(), 'bench-health-'));
const env = {
  PATH: process.env.PATH,
  HOME: join(dir, 'home'),
  NOTEGATE_MODEL_CACHE: join(shared, 'models-standin'),
};

function prepare() {
  const repo = join(dir, 'repo');
  mkdirSync(join(repo, '.git'), { recursive: true });
  mkdirSync(join(repo, 'vault'), { recursive: true });
  mkdirSync(env.HOME, { recursive: true });
  const corpus = readFileSync(join(shared, 'eval/scifact/corpus.jsonl'), 'utf8').trim().split('\n').slice(0, FILES);
  const words = [];
  for (const [i, line] of corpus.entries()) {
    const { title, text } = JSON.parse(line);
    writeFileSync(join(repo, 'vault', `note-${i}.md`), `# ${title}\n\n${text}\n`);
    words.push(...String(text).split(/\s+/));
  }
  const config = join(repo, 'rag', 'vaults.json');
  mkdirSync(join(repo, 'rag'));
  writeFileSync(
    config,
    JSON.stringify({ embed_model: 'intfloat/multilingual-e5-small', vaults: [{ id: 'scifact', path: 'vault' }] }),
  );
  const started = Date.now();
  const run = spawnSync(process.execPath, [ragCli(after), 'index', '--config', config, '--quiet'], { env });
  if (run.status !== 0) throw new Error(`index failed: ${run.stderr}`);
  console.log(`indexed ${FILES} notes in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  const long = [];
  for (let i = 0; long.join(' ').length < 60 * 1024; i++) long.push(words[i % words.length]);
  const atCap = words
    .filter((word) => /^\p{L}{8,14}$/u.test(word))
    .slice(0, 64)
    .join(' ')
    .slice(0, 1_000);
  return { config, queries: { '60 KiB paste': long.join(' ').slice(0, 60 * 1024), '1,000 chars / 64 terms': atCap } };
}

async function timed(url, init) {
  const started = performance.now();
  const response = await fetch(url, init);
  await response.arrayBuffer();
  return { status: response.status, ms: performance.now() - started };
}

async function untilReady(base) {
  for (;;) {
    if ((await timed(new URL('/health', base))).status === 200) return;
    await sleep(200);
  }
}

/** GET /health every 25 ms for `durationMs`, from a worker thread: the 32 searching clients never delay it. */
function probeHealth(base, delayMs, durationMs) {
  const source = `
    const { workerData, parentPort } = require('node:worker_threads');
    (async () => {
      await new Promise((r) => setTimeout(r, workerData.delayMs));
      const samples = [];
      const until = Date.now() + workerData.durationMs;
      while (Date.now() < until) {
        const started = performance.now();
        const response = await fetch(workerData.url);
        await response.arrayBuffer();
        samples.push(performance.now() - started);
        await new Promise((r) => setTimeout(r, ${HEALTH_EVERY_MS}));
      }
      parentPort.postMessage(samples);
    })();`;
  const worker = new Worker(source, {
    eval: true,
    workerData: { url: String(new URL('/health', base)), delayMs, durationMs },
  });
  return new Promise((resolve, reject) => {
    worker.once('message', (samples) => {
      resolve(samples);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

async function measure(base, query) {
  const idle = await probeHealth(base, 0, 1_000);
  const search = { method: 'POST', body: JSON.stringify({ query, top: 8 }) };
  const until = Date.now() + LOAD_MS;
  const statuses = new Map();
  const searchMs = [];
  const searchers = Array.from({ length: PARALLEL }, async () => {
    while (Date.now() < until) {
      const reply = await timed(new URL('/search', base), search);
      statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
      searchMs.push(reply.ms);
    }
  });
  const health = await probeHealth(base, 200, LOAD_MS - 400);
  await Promise.all(searchers);
  return { idle, health, searchMs, statuses };
}

try {
  const { config, queries } = prepare();
  const rows = [];
  for (const { label, root } of versions) {
    const server = await startServer([ragCli(root), 'serve', '--config', config, '--port', '0'], env);
    try {
      await untilReady(server.url);
      for (const [name, query] of Object.entries(queries)) {
        const r = await measure(server.url, query);
        rows.push([
          label,
          name,
          [...r.statuses].map(([status, count]) => `${count}× ${status}`).join(', '),
          ms(quantile(r.searchMs, 0.5)),
          ms(quantile(r.idle, 0.5)),
          ms(quantile(r.health, 0.5)),
          ms(quantile(r.health, 0.99)),
          ms(Math.max(...r.health)),
        ]);
      }
    } finally {
      await server.stop();
    }
  }
  printTable(
    `/health while ${PARALLEL} searches run at once (${LOAD_MS / 1000} s per row, ${FILES} notes)`,
    [
      'server',
      'query',
      'search answers',
      'search p50',
      '/health idle p50',
      '/health p50',
      '/health p99',
      '/health max',
    ],
    rows,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
