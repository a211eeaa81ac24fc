#!/usr/bin/env node
// Token service throughput, in one run: notegate authz against the jose crypto ceiling and
// oidc-provider. Servers run pinned to core 0, load (autocannon, one unique pre-minted assertion per
// request, reject mode) from a separate process on core 1. Rounds are interleaved and the median is
// reported, so a noisy neighbour on the shared machine hits every case alike; CPU seconds per token
// (all threads of the server process) are reported too, as they hold up better under contention.
//
// Run after `npx tsc -b`:  node bench/authz/run.mjs [rounds=5] [authz-requests=12000] [oidc-requests=5000]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPLAY_CACHE_CAPACITY } from '../../auth/dist/src/authz/replay-cache.js';
import { AUTHZ_ISSUER, writeFixtures } from './fixtures.mjs';
import { cpuSeconds, memoryMiB, runJson, startServer } from './processes.mjs';

const [rounds = 5, authzRequests = 12_000, oidcRequests = 5_000] = process.argv.slice(2).map(Number);
const CONNECTIONS = 50;
const WARMUP_REQUESTS = 2_000;
const HALF_RATE_SECONDS = 6;
const CEILING_SECONDS = 4;
const SERVER_CORE = 0;
const LOAD_CORE = 1;
const here = (name) => fileURLToPath(new URL(name, import.meta.url));
const CLI = fileURLToPath(new URL('../../auth/dist/src/cli/main.js', import.meta.url));

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function load(dir, target, url, { warmup = WARMUP_REQUESTS, amount, rate }) {
  const args = [here('load.mjs'), dir, target, url, String(warmup), String(amount), String(CONNECTIONS)];
  return runJson(LOAD_CORE, rate === undefined ? args : [...args, String(Math.round(rate))]);
}

/** One load run against a running server, with the server's CPU seconds per token. */
async function measureServer(dir, server, target, amount) {
  const cpuBefore = cpuSeconds(server.pid);
  const result = await load(dir, target, server.url, { amount });
  const ok = result.statuses[200] ?? 0;
  if (ok !== amount) throw new Error(`${target}: ${JSON.stringify(result.statuses)} for ${amount} requests`);
  return { ...result, perCpuS: (WARMUP_REQUESTS + amount) / (cpuSeconds(server.pid) - cpuBefore) };
}

/** The real `notegate authz` process (10,000-entry cap): fill the replay cache, see the 503, read its memory. */
async function fullReplayCache(dir, serve) {
  const args = [CLI, 'authz', '--issuer', AUTHZ_ISSUER, '--policy', join(dir, 'policy.yaml')];
  args.push('--jwt-bundle', join(dir, 'bundle.json'), '--host', '127.0.0.1', '--port', '0');
  args.push('--audit-log', join(dir, 'cli-audit.log'));
  const cli = await serve(args);
  const idle = memoryMiB(cli.pid);
  const filled = await load(dir, 'authz', cli.url, { warmup: 0, amount: REPLAY_CACHE_CAPACITY });
  const overflow = await load(dir, 'authz', cli.url, { warmup: 0, amount: 1 });
  return { filled, overflow, idle, memory: memoryMiB(cli.pid) };
}

const dir = await mkdtemp(join(tmpdir(), 'notegate-bench-authz-'));
const servers = [];
const serve = async (args) => {
  const server = await startServer(SERVER_CORE, args);
  servers.push(server);
  return server;
};
try {
  await writeFixtures(dir);
  const authz = await serve([here('authz-server.mjs'), dir]);
  const oidc = await serve([here('oidc-provider-server.mjs'), dir]);
  const bare = await serve([here('bare-server.mjs'), dir]);
  const floor = await serve([here('floor-server.mjs')]);
  const samples = {
    ceiling: [],
    ceilingCpu: [],
    authz: [],
    authzCpu: [],
    oidc: [],
    oidcCpu: [],
    bare: [],
    bareCpu: [],
    floor: [],
  };
  for (let round = 0; round < rounds; round++) {
    const ceiling = await runJson(SERVER_CORE, [here('ceiling.mjs'), dir, String(CEILING_SECONDS)]);
    const best = ceiling.concurrent.perS >= ceiling.sequential.perS ? ceiling.concurrent : ceiling.sequential;
    samples.ceiling.push(best.perS);
    samples.ceilingCpu.push(best.perCpuS);
    const ours = await measureServer(dir, authz, 'authz', authzRequests);
    samples.authz.push(ours.tokensPerS);
    samples.authzCpu.push(ours.perCpuS);
    const peer = await measureServer(dir, oidc, 'oidc', oidcRequests);
    samples.oidc.push(peer.tokensPerS);
    samples.oidcCpu.push(peer.perCpuS);
    const reference = await measureServer(dir, bare, 'authz', authzRequests);
    samples.bare.push(reference.tokensPerS);
    samples.bareCpu.push(reference.perCpuS);
    samples.floor.push((await load(dir, 'authz', floor.url, { amount: authzRequests })).tokensPerS);
    process.stderr.write(`round ${round + 1}/${rounds} done\n`);
  }
  const peak = Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, median(values)]));
  const half = {
    authz: await load(dir, 'authz', authz.url, {
      amount: Math.round((peak.authz / 2) * HALF_RATE_SECONDS),
      rate: peak.authz / 2,
    }),
    oidc: await load(dir, 'oidc', oidc.url, {
      amount: Math.round((peak.oidc / 2) * HALF_RATE_SECONDS),
      rate: peak.oidc / 2,
    }),
  };
  const memory = { authz: memoryMiB(authz.pid), oidc: memoryMiB(oidc.pid) };
  await Promise.all(servers.splice(0).map((server) => server.stop()));
  const full = await fullReplayCache(dir, serve);
  report({ peak, samples, half, memory, full });
} finally {
  await Promise.all(servers.map((server) => server.stop()));
  await rm(dir, { recursive: true, force: true });
}

function report({ peak, samples, half, memory, full }) {
  const n = (value, digits = 0) =>
    value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
  const pct = (value) => `${(100 * value).toFixed(0)}%`;
  console.log(
    `node ${process.version}; servers on core ${SERVER_CORE}, autocannon on core ${LOAD_CORE}, ${CONNECTIONS} connections;`,
  );
  console.log(
    `median of ${rounds} interleaved rounds (authz ${authzRequests} and oidc-provider ${oidcRequests} requests after ${WARMUP_REQUESTS} warm-up, ceiling ${CEILING_SECONDS} s)\n`,
  );
  const rows = [
    ['case', 'tokens/s', 'tokens/CPU-s', 'p50 @ half', 'p99 @ half', 'peak RSS'],
    ['jose ceiling (verify + sign, 1 core)', n(peak.ceiling), n(peak.ceilingCpu), '', '', ''],
    [
      'notegate authz (reject mode)',
      n(peak.authz),
      n(peak.authzCpu),
      `${n(half.authz.p50Ms, 1)} ms`,
      `${n(half.authz.p99Ms, 1)} ms`,
      `${n(memory.authz.peak)} MiB`,
    ],
    [
      'oidc-provider (private_key_jwt, JWT AT)',
      n(peak.oidc),
      n(peak.oidcCpu),
      `${n(half.oidc.p50Ms, 1)} ms`,
      `${n(half.oidc.p99Ms, 1)} ms`,
      `${n(memory.oidc.peak)} MiB`,
    ],
    ['bare node:http + jose (no checks, no audit)', n(peak.bare), n(peak.bareCpu), '', '', ''],
    ['load generator floor (no-op server)', n(peak.floor), '', '', '', ''],
  ];
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  for (const row of rows) console.log(`| ${row.map((cell, column) => cell.padEnd(widths[column])).join(' | ')} |`);
  // Ratios are taken round by round (the cases of one round ran back to back), then the median.
  const ratio = (a, b) => median(samples[a].map((value, round) => value / samples[b][round]));
  const line = (label, a, b, goal) =>
    console.log(
      `  ${label.padEnd(22)} ${pct(ratio(a, b))} tokens/s, ${pct(ratio(`${a}Cpu`, `${b}Cpu`))} per CPU-s ${goal}`,
    );
  console.log('\nmedian of the per-round ratios:');
  line('authz / oidc-provider', 'authz', 'oidc', '(goal >= 200%)');
  line('authz / ceiling', 'authz', 'ceiling', '(goal >= 75%)');
  line('bare / ceiling', 'bare', 'ceiling', '(node:http + jose alone)');
  line('authz / bare', 'authz', 'bare', "(notegate's own work)");
  console.log(
    `half-rate runs: authz ${n(peak.authz / 2)}/s offered, oidc-provider ${n(peak.oidc / 2)}/s offered, ${HALF_RATE_SECONDS} s each`,
  );
  console.log(
    `rounds: ${JSON.stringify(Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, v.map((x) => Math.round(x))])))}`,
  );
  const overflowStatus = Object.keys(full.overflow.statuses).join(',');
  console.log(
    `\nnotegate authz CLI, full replay cache: ${full.filled.statuses[200] ?? 0} tokens issued (${n(full.filled.tokensPerS)}/s), ` +
      `next request -> ${overflowStatus}; RSS ${n(full.idle.current, 1)} MiB idle, peak ${n(full.memory.peak, 1)} MiB, now ${n(full.memory.current, 1)} MiB`,
  );
  console.log(
    `(the throughput server above holds every assertion of the run: no 10,000 cap; peak RSS ${n(memory.authz.peak)} MiB)`,
  );
}
