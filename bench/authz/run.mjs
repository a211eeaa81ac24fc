#!/usr/bin/env node
// Token service throughput, in one run: notegate authz with the in-memory and the Redis replay store,
// against the jose crypto ceiling and oidc-provider. Servers run pinned to core 0, load (autocannon,
// one unique pre-minted assertion per request, reject mode) from a separate process on core 1, where
// redis-server runs too (the store is another machine in production; here it must not take the
// server's core). Rounds are interleaved and the median is reported, so a noisy neighbour on the
// shared machine hits every case alike; CPU seconds per token (all threads of the server process)
// are reported too, as they hold up better under contention. Then the real CLI: 60 s of reject mode
// with unique SVIDs on Redis, and the in-memory store filled to its 10,000-entry cap.
//
// Run after `npx tsc -b`:  node bench/authz/run.mjs [rounds=5] [authz-requests=12000] [oidc-requests=5000] [sustained-s=60]
// Needs redis-server (Debian package redis-server).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPLAY_CACHE_CAPACITY } from '../../auth/dist/src/authz/replay/replay-cache.js';
import { AUTHZ_ISSUER, writeFixtures } from './fixtures.mjs';
import { cpuSeconds, memoryMiB, runJson, startRedis, startServer } from './processes.mjs';

const [rounds = 5, authzRequests = 12_000, oidcRequests = 5_000, SUSTAINED_SECONDS = 60] = process.argv
  .slice(2)
  .map(Number);
const CONNECTIONS = 50;
const WARMUP_REQUESTS = 2_000;
const HALF_RATE_SECONDS = 6;
const CEILING_SECONDS = 4;
const SERVER_CORE = 0;
const LOAD_CORE = 1;
const here = (name) => fileURLToPath(new URL(name, import.meta.url));
const CLI = fileURLToPath(new URL('../../auth/dist/src/cli/main.js', import.meta.url));

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function load(dir, target, url, { warmup = WARMUP_REQUESTS, amount, rate, durationS }) {
  const args = [here('load.mjs'), dir, target, url, String(warmup), String(amount), String(CONNECTIONS)];
  args.push(rate === undefined ? '-' : String(Math.round(rate)));
  return runJson(LOAD_CORE, durationS === undefined ? args : [...args, String(durationS)]);
}

/** One load run against a running server, with the server's CPU seconds per token. */
async function measureServer(dir, server, target, amount) {
  const cpuBefore = cpuSeconds(server.pid);
  const result = await load(dir, target, server.url, { amount });
  const ok = result.statuses[200] ?? 0;
  if (ok !== amount) throw new Error(`${target}: ${JSON.stringify(result.statuses)} for ${amount} requests`);
  return { ...result, perCpuS: (WARMUP_REQUESTS + amount) / (cpuSeconds(server.pid) - cpuBefore) };
}

/** `notegate authz` as an operator starts it, with a bundle file, an audit file and `extra` flags. */
function cliArgs(dir, extra = []) {
  const args = [CLI, 'authz', '--issuer', AUTHZ_ISSUER, '--policy', join(dir, 'policy.yaml')];
  args.push('--jwt-bundle', join(dir, 'bundle.json'), '--host', '127.0.0.1', '--port', '0');
  return [...args, '--audit-log', join(dir, 'cli-audit.log'), ...extra];
}

/**
 * The real CLI on Redis (default capacity 1,000,000), unthrottled for 60 s with a unique SVID per
 * request: the rate reject mode sustains. A store of its own (database 1), so nothing else counts.
 */
async function sustainedOnRedis(dir, serve, redis, expectedPerS) {
  const cli = await serve(cliArgs(dir, ['--replay-store', redis.url.replace(/\/0$/, '/1')]));
  const cpuBefore = cpuSeconds(cli.pid);
  const amount = Math.ceil(expectedPerS * SUSTAINED_SECONDS * 1.5);
  const result = await load(dir, 'authz', cli.url, { warmup: 0, amount, durationS: SUSTAINED_SECONDS });
  const tokens = result.statuses[200] ?? 0;
  return { ...result, tokens, perCpuS: tokens / (cpuSeconds(cli.pid) - cpuBefore), memory: memoryMiB(cli.pid) };
}

/** The real `notegate authz` process in memory (10,000-entry cap): fill the replay store, see the 503, read its memory. */
async function fullReplayCache(dir, serve) {
  const cli = await serve(cliArgs(dir));
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
const redis = await startRedis(LOAD_CORE, dir);
try {
  await writeFixtures(dir);
  const authz = await serve([here('authz-server.mjs'), dir]);
  const authzRedis = await serve([here('authz-server.mjs'), dir, redis.url]);
  const oidc = await serve([here('oidc-provider-server.mjs'), dir]);
  const bare = await serve([here('bare-server.mjs'), dir]);
  const floor = await serve([here('floor-server.mjs')]);
  const samples = {
    ceiling: [],
    ceilingCpu: [],
    authz: [],
    authzCpu: [],
    redis: [],
    redisCpu: [],
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
    const shared = await measureServer(dir, authzRedis, 'authz', authzRequests);
    samples.redis.push(shared.tokensPerS);
    samples.redisCpu.push(shared.perCpuS);
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
  const atHalf = (target, server, perS) =>
    load(dir, target, server.url, { amount: Math.round((perS / 2) * HALF_RATE_SECONDS), rate: perS / 2 });
  const half = {
    authz: await atHalf('authz', authz, peak.authz),
    redis: await atHalf('authz', authzRedis, peak.redis),
    oidc: await atHalf('oidc', oidc, peak.oidc),
  };
  const memory = { authz: memoryMiB(authz.pid), redis: memoryMiB(authzRedis.pid), oidc: memoryMiB(oidc.pid) };
  await Promise.all(servers.splice(0).map((server) => server.stop()));
  const sustained = await sustainedOnRedis(dir, serve, redis, peak.redis);
  await Promise.all(servers.splice(0).map((server) => server.stop()));
  const full = await fullReplayCache(dir, serve);
  report({ peak, samples, half, memory, sustained, full });
} finally {
  await Promise.all(servers.map((server) => server.stop()));
  await redis.stop();
  await rm(dir, { recursive: true, force: true });
}

function report({ peak, samples, half, memory, sustained, full }) {
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
      'notegate authz, memory store (reject mode)',
      n(peak.authz),
      n(peak.authzCpu),
      `${n(half.authz.p50Ms, 1)} ms`,
      `${n(half.authz.p99Ms, 1)} ms`,
      `${n(memory.authz.peak)} MiB`,
    ],
    [
      'notegate authz, Redis store (reject mode)',
      n(peak.redis),
      n(peak.redisCpu),
      `${n(half.redis.p50Ms, 1)} ms`,
      `${n(half.redis.p99Ms, 1)} ms`,
      `${n(memory.redis.peak)} MiB`,
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
  line('redis / memory', 'redis', 'authz', '(goal >= 90%)');
  line('authz / oidc-provider', 'authz', 'oidc', '(goal >= 200%)');
  line('redis / oidc-provider', 'redis', 'oidc', '');
  line('authz / ceiling', 'authz', 'ceiling', '(goal >= 75% per CPU-s)');
  line('redis / ceiling', 'redis', 'ceiling', '');
  line('bare / ceiling', 'bare', 'ceiling', '(node:http + jose alone)');
  line('authz / bare', 'authz', 'bare', "(notegate's own work)");
  console.log(
    `half-rate runs: authz ${n(peak.authz / 2)}/s (memory) and ${n(peak.redis / 2)}/s (Redis), oidc-provider ${n(peak.oidc / 2)}/s offered, ${HALF_RATE_SECONDS} s each`,
  );
  console.log(
    `rounds: ${JSON.stringify(Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, v.map((x) => Math.round(x))])))}`,
  );
  const refusedSustained = Object.entries(sustained.statuses)
    .filter(([status]) => status !== '200')
    .reduce((total, [, count]) => total + count, 0);
  console.log(
    `\nnotegate authz CLI on Redis, reject mode, ${SUSTAINED_SECONDS} s unthrottled with unique SVIDs: ${n(sustained.tokens)} tokens, ` +
      `${n(sustained.tokens / SUSTAINED_SECONDS)}/s sustained (${n(sustained.tokensPerS)}/s over the answered span), ${n(sustained.perCpuS)} tokens/CPU-s, ` +
      `${refusedSustained} refused, p50 ${n(sustained.p50Ms, 1)} ms, p99 ${n(sustained.p99Ms, 1)} ms, peak RSS ${n(sustained.memory.peak)} MiB`,
  );
  console.log(
    `  (the in-memory store sustains ${REPLAY_CACHE_CAPACITY} / (300 s + 30 s) = ${n(REPLAY_CACHE_CAPACITY / 330)}/s of new assertions: see the next line)`,
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
