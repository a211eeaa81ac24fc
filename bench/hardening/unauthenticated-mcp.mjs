#!/usr/bin/env node
// What an unauthenticated client can make the notes server do, this checkout against another built one
// (--before DIR): the server's CPU time per token-less POST carrying 1 MiB of nested `[` (read from
// /proc, the server is its own process: `notegate notes-server`), and the latency of an authenticated
// client's tools/call while 8 such clients post in a loop, against the same client alone.
//   node bench/hardening/unauthenticated-mcp.mjs [--before DIR]     (env BENCH_SECONDS=8, BENCH_CPU_REQUESTS=100)
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuSeconds } from '../authz/processes.mjs';
import { checkouts, ms, printTable, quantile, startNotesServer } from './support.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CPU_REQUESTS = Number(process.env.BENCH_CPU_REQUESTS ?? 100);
const ATTACKERS = 8;
const NESTED = '['.repeat(1024 * 1024);
const versions = checkouts();

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const SEARCH = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'notes.search', arguments: { query: 'key rotation' } },
});

/** One POST; resolves with status (0 when the connection was reset first) and milliseconds. */
function post(url, headers, body) {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request(url, { method: 'POST', headers: { ...headers, 'content-length': Buffer.byteLength(body) } });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, ms: performance.now() - started }));
    });
    req.on('error', () => resolve({ status: 0, ms: performance.now() - started }));
    req.end(body);
  });
}

async function clientLatencies(url, token, seconds) {
  const samples = [];
  const until = Date.now() + seconds * 1000;
  while (Date.now() < until) {
    const reply = await post(url, { ...HEADERS, authorization: `Bearer ${token}` }, SEARCH);
    if (reply.status !== 200) throw new Error(`the authenticated client got ${reply.status}`);
    samples.push(reply.ms);
  }
  return samples;
}

const dir = mkdtempSync(join(tmpdir(), 'bench-unauth-'));
const rows = [];
try {
  for (const { label, root } of versions) {
    const server = await startNotesServer(root, dir, label);
    const { endpoint, issuer } = server;
    try {
      const token = await issuer.sign();
      await clientLatencies(endpoint, token, 1); // warm-up: key set fetched, SDK instances pooled
      const cpuBefore = cpuSeconds(server.pid);
      const statuses = new Set();
      for (let i = 0; i < CPU_REQUESTS; i++) statuses.add((await post(endpoint, HEADERS, NESTED)).status);
      const cpuPerRequestMs = ((cpuSeconds(server.pid) - cpuBefore) * 1000) / CPU_REQUESTS;
      const alone = await clientLatencies(endpoint, token, SECONDS);
      let attacking = true;
      const attackers = Array.from({ length: ATTACKERS }, async () => {
        while (attacking) await post(endpoint, HEADERS, NESTED);
      });
      const underAttack = await clientLatencies(endpoint, token, SECONDS);
      attacking = false;
      await Promise.all(attackers);
      rows.push([
        label,
        [...statuses].join(', '),
        ms(cpuPerRequestMs),
        ms(quantile(alone, 0.5)),
        ms(quantile(alone, 0.99)),
        ms(quantile(underAttack, 0.5)),
        ms(quantile(underAttack, 0.99)),
        String(underAttack.length),
      ]);
    } finally {
      await server.stop();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
printTable(
  `Token-less POSTs of 1 MiB nested [ at the notes server; another client's tools/call alone and with ${ATTACKERS} such clients (${SECONDS} s each)`,
  [
    'server',
    'status',
    'server CPU / request',
    'client p50 alone',
    'client p99 alone',
    `p50 with ${ATTACKERS}`,
    `p99 with ${ATTACKERS}`,
    'calls',
  ],
  rows,
);
