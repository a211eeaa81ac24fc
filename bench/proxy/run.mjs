#!/usr/bin/env node
// notegate proxy on loopback against the real deployment (development identity provider over unix
// sockets, notegate authz fed by its Workload API, a notes server in this process):
//  1. the latency one tools/call notes.search gains through the proxy: an SDK v2 client over stdio to
//     `notegate proxy` against the same SDK client speaking Streamable HTTP directly with a token in
//     hand, both revisions, interleaved in every round (the machine is shared); "added" is the median
//     of the per-round differences;
//  2. the cost of a refresh: the discovery chain itself, and a call through the proxy while its token
//     is being replaced in the background or must be fetched first (authz minting 2 s tokens).
//   npx tsc -b && node bench/proxy/run.mjs          (env: BENCH_ROUNDS=300 BENCH_REFRESH_ROUNDS=15)
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { fetchAccessToken } from '../../auth/dist/src/agent/fetch-access-token.js';
import { startAgentStack } from '../../auth/dist/test/support/agent-stack.js';
import { Cleanups } from '../../auth/dist/test/support/cleanups.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 300);
const REFRESH_ROUNDS = Number(process.env.BENCH_REFRESH_ROUNDS ?? 15);
const CLI = join(dirname(fileURLToPath(import.meta.url)), '../../auth/dist/src/cli/main.js');
const SEARCH = { name: 'notes.search', arguments: { query: 'rotation' } };

const cleanups = new Cleanups();

function proxyArgs(stack) {
  return [CLI, 'proxy', ...stack.targetArgs(stack.notesA.resource), '--audit-log', '/dev/null'];
}

async function connect(transport, mode) {
  const client = new Client({ name: 'bench-proxy', version: '1.0.0' }, { versionNegotiation: { mode } });
  await client.connect(transport);
  cleanups.after(() => client.close());
  return client;
}

const viaProxy = (stack, mode) =>
  connect(new StdioClientTransport({ command: process.execPath, args: proxyArgs(stack), stderr: 'ignore' }), mode);

async function direct(stack, mode, accessToken) {
  const transport = new StreamableHTTPClientTransport(new URL(stack.notesA.resource), {
    authProvider: { token: async () => accessToken },
  });
  return connect(transport, mode);
}

const timeCall = async (client) => {
  const started = performance.now();
  await client.callTool(SEARCH);
  return performance.now() - started;
};

const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};
const row = (name, values, extra = '') =>
  `| ${name.padEnd(62)} | ${quantile(values, 0.5).toFixed(2).padStart(8)} | ${quantile(values, 0.9).toFixed(2).padStart(8)} | ${extra.padStart(12)} |`;
const header = (title) => {
  console.log(`\n${title}\n`);
  console.log(
    `| ${'variant'.padEnd(62)} | ${'median'.padStart(8)} | ${'p90'.padStart(8)} | ${'added (p50)'.padStart(12)} |`,
  );
  console.log(`| ${'-'.repeat(62)} | ${'-'.repeat(8)} | ${'-'.repeat(8)} | ${'-'.repeat(12)} |`);
};

// 1. Added latency, token in hand on both paths.
const stack = await startAgentStack(cleanups);
const token = await fetchAccessToken({
  resource: stack.notesA.resource,
  trustedIssuers: [stack.issuer],
  svidSource: stack.agentSvidSource(cleanups),
});
const clients = {};
for (const [mode, revision] of [
  ['auto', '2026-07-28'],
  ['legacy', '2025-11-25'],
]) {
  clients[`direct SDK client, Streamable HTTP, ${revision}`] = await direct(stack, mode, token.accessToken);
  clients[`SDK client over stdio through notegate proxy, ${revision}`] = await viaProxy(stack, mode);
}
const samples = Object.fromEntries(Object.keys(clients).map((name) => [name, []]));
for (const client of Object.values(clients)) for (let i = 0; i < 20; i++) await client.callTool(SEARCH); // warm-up
for (let round = 0; round < ROUNDS; round++) {
  const names = Object.keys(clients);
  for (let i = 0; i < names.length; i++) {
    const name = names[(i + round) % names.length];
    samples[name].push(await timeCall(clients[name]));
  }
}
header(`tools/call notes.search on loopback, ${ROUNDS} interleaved rounds; milliseconds`);
for (const [name, values] of Object.entries(samples)) {
  const revision = name.slice(-10);
  const baseline = samples[`direct SDK client, Streamable HTTP, ${revision}`];
  // The median of the per-round differences: each proxied call against the direct call of its own
  // round, so drifts in the machine's load cancel out.
  const added = name.startsWith('direct')
    ? ''
    : quantile(
        values.map((ms, i) => ms - baseline[i]),
        0.5,
      ).toFixed(2);
  console.log(row(name, values, added));
}

// 2. The cost of a refresh: 2 s tokens, so the proxy refreshes in the background from 1 s on and makes a
// request wait from 1.5 s on (docs/protocol.md#proxy).
const shortLived = await startAgentStack(cleanups, { accessTokenLifetimeS: 2 });
const svids = shortLived.agentSvidSource(cleanups);
const chain = [];
for (let i = 0; i < REFRESH_ROUNDS * 2; i++) {
  const started = performance.now();
  await fetchAccessToken({
    resource: shortLived.notesA.resource,
    trustedIssuers: [shortLived.issuer],
    svidSource: svids,
  });
  chain.push(performance.now() - started);
}
const proxied = await viaProxy(shortLived, 'auto');
const issued = () => shortLived.authzAudit.filter((line) => JSON.parse(line).decision === 'allow');
const lastIssuedMs = () => Date.parse(JSON.parse(issued().at(-1)).timestamp);
const inHand = [];
const background = [];
const waiting = [];
for (let round = 0; round < REFRESH_ROUNDS; round++) {
  await proxied.callTool(SEARCH); // makes sure a token is held
  inHand.push(await timeCall(proxied));
  await sleep(Math.max(0, lastIssuedMs() + 1_150 - Date.now()));
  background.push(await timeCall(proxied)); // starts the background refresh, sent with the old token
  await sleep(1_700); // the new token is now past its send margin too
  const before = issued().length;
  waiting.push(await timeCall(proxied));
  if (issued().length === before)
    throw new Error('the call did not wait for a new token; the machine is too slow for this schedule');
}
header(`The cost of a refresh (authz minting 2 s tokens), ${REFRESH_ROUNDS} rounds; milliseconds`);
console.log(row('discovery chain once (fetchAccessToken: metadata, SVID, token)', chain));
console.log(row('tools/call through the proxy, token in hand', inHand));
console.log(
  row(
    'tools/call that starts a background refresh',
    background,
    (quantile(background, 0.5) - quantile(inHand, 0.5)).toFixed(2),
  ),
);
console.log(
  row('tools/call that waits for a new token', waiting, (quantile(waiting, 0.5) - quantile(inHand, 0.5)).toFixed(2)),
);
await cleanups.run();
