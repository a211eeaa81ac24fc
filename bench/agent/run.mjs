#!/usr/bin/env node
// Time of one agent run on loopback against the real deployment (development identity provider over
// unix sockets, notegate authz fed by its Workload API, a notes server): discovery → SVID → token →
// tools/call notes.search. Variants are interleaved in every round (the machine is shared), and the
// table shows medians and 90th percentiles, plus the per-step split of the full run.
//   npx tsc -b && node bench/agent/run.mjs          (env: BENCH_ROUNDS=60 BENCH_CLI_ROUNDS=8)
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { fetchAccessToken } from '../../auth/dist/src/agent/fetch-access-token.js';
import { callMcpServer } from '../../auth/dist/src/agent/mcp-call.js';
import { AccessTokenCache } from '../../auth/dist/src/agent/token-cache.js';
import { startAgentStack } from '../../auth/dist/test/support/agent-stack.js';
import { Cleanups } from '../../auth/dist/test/support/cleanups.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 60);
const CLI_ROUNDS = Number(process.env.BENCH_CLI_ROUNDS ?? 8);
const CLI = join(dirname(fileURLToPath(import.meta.url)), '../../auth/dist/src/cli/main.js');

const cleanups = new Cleanups();
const stack = await startAgentStack(cleanups);
const svids = stack.agentSvidSource(cleanups);

/** Step durations of the current run, by what was asked. */
let steps = {};
const timed = (name, promise) => {
  const started = performance.now();
  return promise.finally(() => {
    steps[name] = (steps[name] ?? 0) + performance.now() - started;
  });
};
const stepOf = (url) => {
  const path = new URL(url).pathname;
  if (path.startsWith('/.well-known/oauth-protected-resource')) return 'resource metadata';
  if (path.startsWith('/.well-known/oauth-authorization-server')) return 'issuer metadata';
  if (path === '/token') return 'token request';
  return 'MCP (connect + call)';
};
const timedFetch = (url, init) => timed(stepOf(url), fetch(url, init));
const timedSvids = { fetchJwtSvid: (request) => timed('SVID (Workload API)', svids.fetchJwtSvid(request)) };

const base = {
  resource: stack.notesA.resource,
  trustedIssuers: [stack.issuer],
  svidSource: timedSvids,
  fetch: timedFetch,
};
const search = { kind: 'call_tool', name: 'notes.search', arguments: { query: 'rotation' } };
const cache = new AccessTokenCache();
const cachedToken = await fetchAccessToken({ ...base, scope: 'notes:read', cache });

const variants = {
  'full run: discovery, SVID, token, tools/call': async () => {
    const token = await fetchAccessToken({ ...base, scope: 'notes:read' });
    await callMcpServer({ token, operation: search, fetch: timedFetch });
  },
  'token only (steps 1-5)': () => fetchAccessToken({ ...base, scope: 'notes:read' }),
  'cached token (resource metadata + cache hit) + tools/call': async () => {
    const token = await fetchAccessToken({ ...base, scope: 'notes:read', cache });
    await callMcpServer({ token, operation: search });
  },
  'tools/call with a token in hand (SDK connect + call)': () =>
    callMcpServer({ token: cachedToken, operation: search }),
};

const samples = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
const stepSamples = {};
for (const run of Object.values(variants)) await run(); // warm-up
for (let round = 0; round < ROUNDS; round++) {
  const names = Object.keys(variants);
  const order = names.map((_, i) => names[(i + round) % names.length]);
  for (const name of order) {
    steps = {};
    const started = performance.now();
    await variants[name]();
    samples[name].push(performance.now() - started);
    if (name.startsWith('full run')) {
      for (const [step, ms] of Object.entries(steps)) {
        stepSamples[step] = [...(stepSamples[step] ?? []), ms];
      }
    }
  }
}

const cliArgs = [
  'agent',
  ...stack.targetArgs(stack.notesA.resource),
  '--audit-log',
  '/dev/null',
  '--tool',
  'notes.search',
  '--arguments',
  '{"query":"rotation"}',
];
const cli = { 'notegate agent process, full run': [], 'notegate agent --help process (start-up only)': [] };
for (let round = 0; round < CLI_ROUNDS; round++) {
  for (const [name, args] of [
    ['notegate agent process, full run', cliArgs],
    ['notegate agent --help process (start-up only)', ['agent', '--help']],
  ]) {
    const started = performance.now();
    // Asynchronously: the servers live in this process.
    await promisify(execFile)(process.execPath, [CLI, ...args]);
    cli[name].push(performance.now() - started);
  }
}

const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};
const row = (name, values) =>
  `| ${name.padEnd(58)} | ${quantile(values, 0.5).toFixed(1).padStart(8)} | ${quantile(values, 0.9).toFixed(1).padStart(8)} |`;
console.log(`\nAgent on loopback, ${ROUNDS} interleaved rounds (process rows: ${CLI_ROUNDS}); milliseconds\n`);
console.log(`| ${'variant'.padEnd(58)} | ${'median'.padStart(8)} | ${'p90'.padStart(8)} |`);
console.log(`| ${'-'.repeat(58)} | ${'-'.repeat(8)} | ${'-'.repeat(8)} |`);
for (const [name, values] of Object.entries(samples)) console.log(row(name, values));
for (const [name, values] of Object.entries(cli)) console.log(row(name, values));
console.log(`\nSteps of the full run (medians):\n`);
for (const [step, values] of Object.entries(stepSamples)) console.log(row(step, values));
await cleanups.run();
