#!/usr/bin/env node
// Throughput of `tools/call notes.search` on the notes server with a valid token, against the same SDK
// server without authorization, in one run: each variant is its own server process, the load generator
// (autocannon) is another process; with `taskset` the server is pinned to CPU 0 and autocannon to CPU 1.
// Also measures the latency of a cold key-set fetch (first request after start).
// The machine is shared, so absolute numbers drift between minutes: every round measures all variants
// back to back (in a rotated order) and the cost of authorization is the median of the per-round ratios.
//   npm run bench:mcp-server            (env: BENCH_DURATION_S=6 BENCH_ROUNDS=5 BENCH_CONNECTIONS=50)
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { reservePort } from '../../auth/dist/src/demo/free-port.js';
import { NotesStore } from '../../auth/dist/src/mcp-server/notes/notes-store.js';
import { TestAccessTokenIssuer } from '../../auth/dist/test/support/access-token-issuer.js';
import { cpuSeconds } from '../authz/processes.mjs';
import { authorizationStageCost } from './authorization-stage.mjs';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 6);
const WARMUP_S = 2;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const NOTES = 200;
const COLD_SAMPLES = 3;
/** The server refetches keys for an unknown kid at most every 10 s; the cold-fetch probe waits that out. */
const REFETCH_INTERVAL_MS = 10_000;

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const AUTOCANNON = join(dirname(require.resolve('autocannon/package.json')), 'autocannon.js');
const CLI = join(here, '../../auth/dist/src/cli/main.js');
const SERVE = join(here, 'serve.mjs');
const pinned = spawnSync('taskset', ['-c', '0', 'true']).status === 0;
const cpu = (core, argv) => (pinned ? ['taskset', ['-c', String(core), ...argv]] : [argv[0], argv.slice(1)]);

const VARIANTS = [
  { name: 'sdk-plain', what: 'SDK createMcpHandler + toNodeHandler, new McpServer per request, no authorization' },
  { name: 'noauth', what: 'notes server pipeline (screening, pooled SDK), no authorization' },
  { name: 'auth', what: 'notegate notes-server (CLI): bearer checks, scope, audit line to a file' },
  { name: 'auth-nocache', what: 'as auth, verified-token cache off (ES256 verification every request)' },
];

const ERAS = {
  '2026-07-28': (resource) => ({
    headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'notes.search' },
    body: {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'notes.search',
        arguments: { query: 'key rotation audit', limit: 10 },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    },
    resource,
  }),
  '2025-11-25': (resource) => ({
    headers: { 'mcp-protocol-version': '2025-11-25' },
    body: {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'notes.search', arguments: { query: 'key rotation audit', limit: 10 } },
    },
    resource,
  }),
};

const children = new Set();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

async function seedNotes(dir) {
  const store = await NotesStore.open(dir);
  const words = [
    'key',
    'rotation',
    'audit',
    'token',
    'scope',
    'spiffe',
    'workload',
    'meeting',
    'budget',
    'notes',
    'server',
    'policy',
    'deploy',
    'review',
    'incident',
    'backup',
    'search',
    'index',
    'release',
    'schedule',
  ];
  let seed = 7;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed;
  };
  const text = (n) => Array.from({ length: n }, () => words[next() % words.length]).join(' ');
  for (let i = 0; i < NOTES; i++)
    await store.write({ title: `Note ${i} ${text(3)}`, body: `${text(120)}.\n\n${text(80)}.` });
}

/** Starts a variant and resolves once it printed its listening line. */
async function startVariant(variant, context) {
  const port = await reservePort();
  const resource = `http://127.0.0.1:${port}/mcp`;
  const argv =
    variant === 'auth'
      ? [
          process.execPath,
          CLI,
          'notes-server',
          '--name',
          'bench',
          '--resource',
          resource,
          '--issuer',
          context.issuer.issuer,
          '--jwks-uri',
          context.issuer.jwksUri,
          '--notes-dir',
          context.notesDir,
          '--audit-log',
          context.auditFile,
        ]
      : [
          process.execPath,
          SERVE,
          variant,
          String(port),
          context.notesDir,
          context.issuer.issuer,
          context.issuer.jwksUri,
          context.auditFile,
        ];
  const [command, args] = cpu(0, argv);
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  children.add(child);
  await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${variant} exited with ${code}`)));
  });
  return {
    resource,
    pid: child.pid,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', resolve);
        child.kill('SIGTERM');
        children.delete(child);
      }),
  };
}

/** One autocannon run in its own process; resolves with its JSON summary. */
function autocannon(url, headers, body, seconds) {
  const args = [
    AUTOCANNON,
    '-j',
    '-m',
    'POST',
    '-c',
    String(CONNECTIONS),
    '-d',
    String(seconds),
    '-b',
    JSON.stringify(body),
  ];
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

async function measure(variant, era, context) {
  const server = await startVariant(variant, context);
  const request = ERAS[era](server.resource);
  const token = await context.issuer.sign({ claims: { aud: server.resource } });
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...request.headers,
    ...(variant.startsWith('auth') && { authorization: `Bearer ${token}` }),
  };
  await autocannon(server.resource, headers, request.body, WARMUP_S);
  const cpuBefore = cpuSeconds(server.pid);
  const result = await autocannon(server.resource, headers, request.body, DURATION_S);
  const cpuMs = 1000 * (cpuSeconds(server.pid) - cpuBefore);
  await server.stop();
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${variant} ${era}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  }
  // Server CPU per request is what a variant costs; unlike req/s it hardly moves when other processes
  // compete for the machine (the capacity of one core is its inverse).
  const cpuUs = (1000 * cpuMs) / result.requests.total;
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, cpuUs };
}

/**
 * On a warm authorized server: a token signed with a new key (one key-set refetch, key import, ES256
 * verification), a second new token of that key (verification only), and that token again (cached).
 * Also the very first request after start (process warm-up plus the initial fetch).
 */
async function coldKeySetFetch(context) {
  const server = await startVariant('auth', context);
  const { headers, body } = ERAS['2026-07-28'](server.resource);
  const timed = async (token) => {
    const started = performance.now();
    const response = await fetch(server.resource, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify(body),
    });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`probe answered ${response.status}`);
    return performance.now() - started;
  };
  const sign = () => context.issuer.sign({ claims: { aud: server.resource } });
  const firstAfterStart = await timed(await sign());
  for (let i = 0; i < 200; i++) await timed(await sign());
  const samples = { refetch: [], verify: [], cached: [] };
  for (let i = 0; i < COLD_SAMPLES; i++) {
    await new Promise((resolve) => setTimeout(resolve, REFETCH_INTERVAL_MS));
    await context.issuer.rotate();
    const [first, second] = [await sign(), await sign()];
    samples.refetch.push(await timed(first));
    samples.verify.push(await timed(second));
    samples.cached.push(await timed(second));
  }
  await server.stop();
  return {
    firstAfterStart,
    ...Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, median(values)])),
  };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const workDir = mkdtempSync(join(tmpdir(), 'bench-mcp-server-'));
try {
  const issuer = await TestAccessTokenIssuer.start('http://127.0.0.1/mcp');
  const context = { issuer, notesDir: join(workDir, 'notes'), auditFile: join(workDir, 'audit.log') };
  await seedNotes(context.notesDir);
  process.stdout.write(
    `notes.search over ${NOTES} notes; ${CONNECTIONS} connections; ${ROUNDS} rounds x ${DURATION_S} s (+${WARMUP_S} s warm-up)` +
      `${pinned ? '; server on CPU 0, autocannon on CPU 1' : ''}\n`,
  );
  const results = new Map();
  const ratios = new Map();
  const cpuRatios = new Map();
  for (let round = 0; round < ROUNDS; round++) {
    for (const era of Object.keys(ERAS)) {
      const order = VARIANTS.map((_, i) => VARIANTS[(i + round) % VARIANTS.length].name);
      const samples = {};
      for (const name of order) samples[name] = await measure(name, era, context);
      for (const name of order) {
        const key = `${name} ${era}`;
        results.set(key, [...(results.get(key) ?? []), samples[name]]);
        ratios.set(key, [...(ratios.get(key) ?? []), samples[name].rps / samples.noauth.rps]);
        cpuRatios.set(key, [...(cpuRatios.get(key) ?? []), samples.noauth.cpuUs / samples[name].cpuUs]);
      }
      process.stdout.write(
        `  round ${round + 1} ${era}: ${order.map((name) => `${name} ${Math.round(samples[name].rps)} req/s ${Math.round(samples[name].cpuUs)} µs`).join(', ')}\n`,
      );
    }
  }
  const summary = (name, era) => {
    const samples = results.get(`${name} ${era}`);
    return {
      rps: median(samples.map((s) => s.rps)),
      p50: median(samples.map((s) => s.p50)),
      p99: median(samples.map((s) => s.p99)),
      ratio: median(ratios.get(`${name} ${era}`)),
      cpuUs: median(samples.map((s) => s.cpuUs)),
      cpuRatio: median(cpuRatios.get(`${name} ${era}`)),
    };
  };
  process.stdout.write(
    '\n| variant | revision | req/s | p50 ms | p99 ms | req/s vs noauth | server CPU µs/request | ' +
      'one-core capacity req/s | capacity vs noauth |\n|---|---|---:|---:|---:|---:|---:|---:|---:|\n',
  );
  for (const era of Object.keys(ERAS)) {
    for (const { name } of VARIANTS) {
      const s = summary(name, era);
      process.stdout.write(
        `| ${name} | ${era} | ${Math.round(s.rps)} | ${s.p50} | ${s.p99} | ${(100 * s.ratio).toFixed(1)}% | ` +
          `${Math.round(s.cpuUs)} | ${Math.round(1e6 / s.cpuUs)} | ${(100 * s.cpuRatio).toFixed(1)}% |\n`,
      );
    }
  }
  process.stdout.write('(medians over rounds; the ratios are medians of per-round ratios)\n');
  for (const era of Object.keys(ERAS)) {
    const auth = summary('auth', era);
    const uncached = summary('auth-nocache', era);
    process.stdout.write(
      `authorization cost ${era}: ${(100 * (1 - auth.cpuRatio)).toFixed(1)}% of one-core capacity, ` +
        `${(100 * (1 - auth.ratio)).toFixed(1)}% of measured req/s (without the verified-token cache: ` +
        `${(100 * (1 - uncached.cpuRatio)).toFixed(1)}% of capacity); goal: at most 15%\n`,
    );
  }
  process.stdout.write('\n');
  for (const { name, what } of VARIANTS) process.stdout.write(`${name}: ${what}\n`);
  const stage = await authorizationStageCost({
    issuer,
    resource: 'http://127.0.0.1:1/mcp',
    notesDir: context.notesDir,
    auditFile: join(workDir, 'stage-audit.log'),
  });
  for (const era of Object.keys(ERAS)) {
    const perRequest = summary('noauth', era).cpuUs;
    process.stdout.write(
      `authorization stage alone (in-process, CPU per request): ${stage.cachedUs.toFixed(1)} µs with the verified-token ` +
        `cache, ${stage.uncachedUs.toFixed(1)} µs verifying ES256 every time; against the ${Math.round(perRequest)} µs ` +
        `a ${era} request costs without authorization that is ${((100 * stage.cachedUs) / (perRequest + stage.cachedUs)).toFixed(1)}% ` +
        `(${((100 * stage.uncachedUs) / (perRequest + stage.uncachedUs)).toFixed(1)}% uncached) of throughput\n`,
    );
  }
  const cold = await coldKeySetFetch(context);
  process.stdout.write(
    `\nlatency of one tools/call (client round trip, median of ${COLD_SAMPLES}): new signing key, so one key-set ` +
      `refetch + import + ES256 verify ${cold.refetch.toFixed(2)} ms; another new token of that key (verify only) ` +
      `${cold.verify.toFixed(2)} ms; the same token again (cached) ${cold.cached.toFixed(2)} ms; very first request ` +
      `after start (initial fetch + process warm-up) ${cold.firstAfterStart.toFixed(2)} ms\n`,
  );
  await issuer.close();
} finally {
  rmSync(workDir, { recursive: true, force: true });
}
