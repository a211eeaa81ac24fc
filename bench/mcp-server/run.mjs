#!/usr/bin/env node
// `tools/call notes.search` on the notes server over the eval notes vault (NOTEGATE_SHARED_DIR/eval/vault-til,
// lexical-only index), in one run:
//   1. capacity: the real CLI with authorization (auth) against the same pipeline without it (noauth) and
//      against the SDK's documented stateless pattern (sdk-plain: createMcpHandler + toNodeHandler, a new
//      McpServer per request) serving the same search; each server its own process pinned to CPU 0,
//      autocannon on CPU 1; server CPU per request gives the one-core capacity;
//   2. p50/p99 of auth at half its peak rate;
//   3. write-to-searchable latency (notes.write answered, then notes.search polled until it finds the note);
//   4. the engine in-process against the same search over loopback HTTP to `notegate-rag serve`;
//   5. with NOTEGATE_STANDIN_MODELS: resident memory of a notes server with the e5-small model and without.
// The machine is shared: every round measures all variants back to back (rotated order) and the ratios are
// medians of per-round ratios.
//   npm run bench:mcp-server    (env: BENCH_DURATION_S=6 BENCH_ROUNDS=3 BENCH_CONNECTIONS=50 BENCH_WRITES=40)
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { reservePort } from '@notegate/kit/http';
import { TestAccessTokenIssuer } from '../../auth/dist/test/support/access-token-issuer.js';
import { cpuSeconds } from '../authz/processes.mjs';
import { benchVaults, openBenchEngine } from './bench-engine.mjs';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 6);
const WARMUP_S = 2;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const WRITES = Number(process.env.BENCH_WRITES ?? 40);
const QUERY = 'git rebase interactive';
/** A query that matches nothing: what the pipeline costs without the search and its hits. */
const NO_HIT_QUERY = 'zqxvnothingmatches';

const sharedDir = process.env.NOTEGATE_SHARED_DIR;
if (!sharedDir) {
  process.stderr.write('NOTEGATE_SHARED_DIR is not set: set it to the shared folder that holds eval/vault-til/.\n');
  process.exit(2);
}
const EVAL_VAULT = join(sharedDir, 'eval', 'vault-til');

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const AUTOCANNON = join(dirname(require.resolve('autocannon/package.json')), 'autocannon.js');
const CLI = join(here, '../../auth/dist/src/cli/main.js');
const RAG_CLI = join(here, '../../rag/dist/src/cli/main.js');
const SERVE = join(here, 'serve.mjs');
const pinned = spawnSync('taskset', ['-c', '0', 'true']).status === 0;
const cpu = (core, argv) => (pinned ? ['taskset', ['-c', String(core), ...argv]] : [argv[0], argv.slice(1)]);

const VARIANTS = [
  {
    name: 'sdk-plain',
    what: "SDK's documented stateless pattern (new McpServer per request), same search, no authorization",
  },
  { name: 'noauth', what: 'notes server pipeline (screening, prepared SDK instances), same search, no authorization' },
  { name: 'auth', what: 'notegate notes-server (CLI): bearer checks, scope, refusal checks, audit line to a file' },
];

const headersFor = (token, tool = 'notes.search') => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/call',
  'mcp-name': tool,
  ...(token && { authorization: `Bearer ${token}` }),
});
const callBody = (name, args, id = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: {
    name,
    arguments: args,
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    },
  },
});

const children = new Set();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

/** Starts a server process on CPU 0; resolves once it printed its listening line. */
async function startProcess(argv, env = process.env) {
  const [command, args] = cpu(0, argv);
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'ignore'], env });
  children.add(child);
  const line = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${argv.join(' ')} exited with ${code}`)));
  });
  return {
    url: line.replace('listening on ', ''),
    pid: child.pid,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', resolve);
        child.kill('SIGTERM');
        children.delete(child);
      }),
  };
}

async function startVariant(variant, context, env = process.env) {
  const port = await reservePort();
  const resource = `http://127.0.0.1:${port}/mcp`;
  if (variant !== 'auth') return startProcess([process.execPath, SERVE, variant, String(port), context.config]);
  const issuer = await TestAccessTokenIssuer.start(resource);
  const server = await startProcess(
    [
      process.execPath,
      CLI,
      'notes-server',
      '--name',
      'bench',
      '--resource',
      resource,
      '--issuer',
      issuer.issuer,
      '--jwks-uri',
      issuer.jwksUri,
      '--vaults-config',
      context.config,
      '--audit-log',
      context.auditFile,
    ],
    env,
  );
  return {
    ...server,
    token: await issuer.sign({ claims: { aud: resource } }),
    stop: async () => {
      await server.stop();
      await issuer.close();
    },
  };
}

/** One autocannon run in its own process on CPU 1; resolves with its JSON summary. */
function autocannon(url, headers, body, seconds, extra = []) {
  const args = [AUTOCANNON, '-j', '-m', 'POST', '-d', String(seconds), '-b', JSON.stringify(body), ...extra];
  if (!extra.includes('-c')) args.push('-c', String(CONNECTIONS));
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}=${value}`);
  args.push(url);
  const [command, argv] = cpu(1, [process.execPath, ...args]);
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'ignore'] });
    children.add(child);
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    child.once('exit', () => {
      children.delete(child);
      try {
        resolve(JSON.parse(out));
      } catch (err) {
        reject(err);
      }
    });
  });
}

async function measure(variant, context, query = QUERY) {
  const server = await startVariant(variant, context);
  const headers = headersFor(server.token);
  const body = callBody('notes.search', { query });
  await autocannon(server.url, headers, body, WARMUP_S);
  const cpuBefore = cpuSeconds(server.pid);
  const result = await autocannon(server.url, headers, body, DURATION_S);
  const cpuUs = (1e6 * (cpuSeconds(server.pid) - cpuBefore)) / result.requests.total;
  await server.stop();
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${variant}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, cpuUs };
}

/** p50/p99 of the authorized server at a fixed rate: half the peak it reached. */
async function halfRate(context, peakRps) {
  const server = await startVariant('auth', context);
  const headers = headersFor(server.token);
  const body = callBody('notes.search', { query: QUERY });
  const rate = Math.max(1, Math.round(peakRps / 2));
  await autocannon(server.url, headers, body, WARMUP_S);
  const result = await autocannon(server.url, headers, body, 2 * DURATION_S, [
    '-c',
    '10',
    '--overallRate',
    String(rate),
  ]);
  await server.stop();
  return { rate, achieved: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
}

async function post(url, token, body) {
  const response = await fetch(url, {
    method: 'POST',
    headers: headersFor(token, body.params.name),
    body: JSON.stringify(body),
  });
  const json = await response.json();
  if (json.error || json.result?.isError) throw new Error(`${url}: ${JSON.stringify(json).slice(0, 200)}`);
  return json.result.structuredContent;
}

/** notes.write, then notes.search every 2 ms until it finds the note: from the answer, and from the request. */
async function writeToSearchable(context) {
  const server = await startVariant('auth', context);
  const afterAnswer = [];
  const afterRequest = [];
  const notIndexedAtAnswer = [];
  for (let i = 0; i < WRITES; i++) {
    const word = `zqx${i}bench${Date.now().toString(36)}`;
    const started = performance.now();
    const written = await post(
      server.url,
      server.token,
      callBody('notes.write', { title: `Bench ${i}`, body: `A note about ${word}.` }),
    );
    const answered = performance.now();
    if (!written.indexed) notIndexedAtAnswer.push(i);
    for (;;) {
      const found = await post(server.url, server.token, callBody('notes.search', { query: word, top: 1 }));
      if (found.hits.some((hit) => hit.path === written.path)) break;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const now = performance.now();
    afterAnswer.push(now - answered);
    afterRequest.push(now - started);
  }
  await server.stop();
  return { afterAnswer, afterRequest, notIndexedAtAnswer };
}

/** CPU per search: in-process through the engine, and over loopback HTTP to `notegate-rag serve` (both sides). */
async function inProcessAgainstHttp(context) {
  const engine = await openBenchEngine(context.config);
  const request = { query: QUERY, top: 8, mode: 'lexical', namespaces: undefined };
  const timed = async (run, n) => {
    for (let i = 0; i < 200; i++) await run();
    const before = process.cpuUsage();
    for (let i = 0; i < n; i++) await run();
    const used = process.cpuUsage(before);
    return (used.user + used.system) / n;
  };
  const inProcessUs = await timed(() => engine.search(request), 2000);
  await engine.close();
  const serve = await startProcess([process.execPath, RAG_CLI, 'serve', '--config', context.config, '--port', '0']);
  const url = new URL('/search', serve.url);
  const body = JSON.stringify({ query: QUERY, top: 8, mode: 'lexical' });
  const fetchSearch = async () => {
    const response = await fetch(url, { method: 'POST', body });
    await response.arrayBuffer();
  };
  const serverBefore = cpuSeconds(serve.pid);
  const n = 2000;
  const clientUs = await timed(fetchSearch, n);
  const serverUs = (1e6 * (cpuSeconds(serve.pid) - serverBefore)) / (n + 200);
  await serve.stop();
  return { inProcessUs, clientUs, serverUs };
}

/** Resident memory of a notes server over the demo handbook, with the stand-in e5-small model and without. */
async function memory(work) {
  const standins = process.env.NOTEGATE_STANDIN_MODELS;
  if (!standins) return undefined;
  const handbook = join(here, '../../demo/vaults/handbook');
  const rss = async (modelId) => {
    const dir = mkdtempSync(join(work, `memory-${modelId.replace(/\W/g, '')}-`));
    const { file } = await benchVaults(dir, handbook, modelId, standins);
    const env = { ...process.env, NOTEGATE_MODEL_CACHE: standins };
    const context = { config: file, auditFile: '/dev/null' };
    const server = await startVariant('auth', context, env);
    // One search of each kind the index allows, so the model (if any) is loaded.
    await post(server.url, server.token, callBody('notes.search', { query: 'rotate keys' }));
    const status = readFileSync(`/proc/${server.pid}/status`, 'utf8');
    await server.stop();
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  };
  return { withoutModelMb: await rss('none'), withModelMb: await rss('intfloat/multilingual-e5-small') };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const quantile = (values, q) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))];

if (!existsSync(EVAL_VAULT)) {
  process.stderr.write(`${EVAL_VAULT} does not exist (NOTEGATE_SHARED_DIR/eval/vault-til)\n`);
  process.exit(2);
}
const work = mkdtempSync(join(tmpdir(), 'bench-mcp-server-'));
try {
  const { file, summary } = await benchVaults(work, EVAL_VAULT);
  const context = { config: file, auditFile: join(work, 'audit.log') };
  process.stdout.write(
    `notes.search "${QUERY}" over ${summary.new} notes (lexical-only index, ${Math.round(summary.durationMs / 1000)} s to build); ` +
      `${CONNECTIONS} connections; ${ROUNDS} rounds x ${DURATION_S} s (+${WARMUP_S} s warm-up)` +
      `${pinned ? '; server on CPU 0, autocannon on CPU 1' : ''}\n`,
  );
  const samples = new Map(VARIANTS.map(({ name }) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = VARIANTS.map((_, i) => VARIANTS[(i + round) % VARIANTS.length].name);
    const measured = {};
    for (const name of order) measured[name] = await measure(name, context);
    for (const name of order)
      samples.get(name).push({ ...measured[name], base: measured.noauth, plain: measured['sdk-plain'] });
    process.stdout.write(
      `  round ${round + 1}: ${order.map((name) => `${name} ${Math.round(measured[name].rps)} req/s ${Math.round(measured[name].cpuUs)} µs`).join(', ')}\n`,
    );
  }
  process.stdout.write(
    '\n| variant | req/s | p50 ms | p99 ms | server CPU µs/request | one-core capacity req/s | capacity vs noauth | capacity vs sdk-plain |\n' +
      '|---|---:|---:|---:|---:|---:|---:|---:|\n',
  );
  const summaryOf = (name) => {
    const rows = samples.get(name);
    return {
      rps: median(rows.map((s) => s.rps)),
      p50: median(rows.map((s) => s.p50)),
      p99: median(rows.map((s) => s.p99)),
      cpuUs: median(rows.map((s) => s.cpuUs)),
      vsNoauth: median(rows.map((s) => s.base.cpuUs / s.cpuUs)),
      vsPlain: median(rows.map((s) => s.plain.cpuUs / s.cpuUs)),
      rpsVsPlain: median(rows.map((s) => s.rps / s.plain.rps)),
    };
  };
  for (const { name } of VARIANTS) {
    const s = summaryOf(name);
    process.stdout.write(
      `| ${name} | ${Math.round(s.rps)} | ${s.p50} | ${s.p99} | ${Math.round(s.cpuUs)} | ${Math.round(1e6 / s.cpuUs)} | ` +
        `${(100 * s.vsNoauth).toFixed(1)}% | ${s.vsPlain.toFixed(2)}x |\n`,
    );
  }
  const auth = summaryOf('auth');
  process.stdout.write(
    `authorization: ${(100 * (1 - auth.vsNoauth)).toFixed(1)}% of one-core capacity (goal: at most 10%)\n` +
      `auth against the SDK's stateless pattern: ${auth.vsPlain.toFixed(2)}x the capacity, ${auth.rpsVsPlain.toFixed(2)}x the measured req/s (goal: at least 2x)\n`,
  );

  const pipeline = {};
  for (const name of ['sdk-plain', 'noauth']) pipeline[name] = await measure(name, context, NO_HIT_QUERY);
  process.stdout.write(
    `without the search (a query that matches nothing, one round): sdk-plain ${Math.round(pipeline['sdk-plain'].cpuUs)} µs, ` +
      `noauth ${Math.round(pipeline.noauth.cpuUs)} µs per request: ${(pipeline['sdk-plain'].cpuUs / pipeline.noauth.cpuUs).toFixed(2)}x\n`,
  );

  const half = await halfRate(context, auth.rps);
  process.stdout.write(
    `\nauth at half its peak (${half.rate} req/s offered, ${Math.round(half.achieved)} served, 10 connections): p50 ${half.p50} ms, p99 ${half.p99} ms\n`,
  );

  const fresh = await writeToSearchable(context);
  process.stdout.write(
    `\nwrite to searchable (${WRITES} notes.write, then notes.search polled every 2 ms): ` +
      `from the answer p50 ${median(fresh.afterAnswer).toFixed(1)} ms, p95 ${quantile(fresh.afterAnswer, 0.95).toFixed(1)} ms; ` +
      `from the request p50 ${median(fresh.afterRequest).toFixed(1)} ms, p95 ${quantile(fresh.afterRequest, 0.95).toFixed(1)} ms ` +
      `(goal: searchable within 2 s of the answer); answers saying indexed: false: ${fresh.notIndexedAtAnswer.length}\n`,
  );

  const engine = await inProcessAgainstHttp(context);
  process.stdout.write(
    `\nthe search, in-process (the engine): ${Math.round(engine.inProcessUs)} µs CPU; over loopback HTTP to notegate-rag serve: ` +
      `${Math.round(engine.clientUs)} µs in the caller + ${Math.round(engine.serverUs)} µs in serve ` +
      `(+${Math.round(engine.clientUs + engine.serverUs - engine.inProcessUs)} µs per search)\n`,
  );

  const rss = await memory(work);
  process.stdout.write(
    rss
      ? `\nresident memory of a notes server (handbook vault, after one search): lexical-only ${Math.round(rss.withoutModelMb)} MB, ` +
          `with the e5-small stand-in model ${Math.round(rss.withModelMb)} MB (+${Math.round(rss.withModelMb - rss.withoutModelMb)} MB per process)\n`
      : '\n(NOTEGATE_STANDIN_MODELS unset: the memory comparison with a model is skipped)\n',
  );
  process.stdout.write('\n');
  for (const { name, what } of VARIANTS) process.stdout.write(`${name}: ${what}\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
