#!/usr/bin/env node
// notegate proxy fed lines faster than its stdout is read (docs/protocol.md#proxy): the proxy's resident
// memory at rest, then after 2 MB of lines that are not JSON while nobody reads its stdout (read from
// /proc once its CPU time stops moving), then how long it takes to answer them all once stdout is read.
// This checkout against another built one (--before DIR). No server is needed: every line gets -32700.
//   node bench/hardening/proxy-back-pressure.mjs [--before DIR]     (env BENCH_LINES=1000000)
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { checkouts, notegateCli, printTable, sleep } from './support.mjs';

const LINES = Number(process.env.BENCH_LINES ?? 1_000_000);
const QUIET_MS = 1_000;

const statusKiB = (pid, name) =>
  Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
const cpuTicks = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(fields[11]) + Number(fields[12]);
};
const bytesRead = (pid) => Number(/^rchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1]);
const mib = (kib) => `${(kib / 1024).toFixed(0)} MiB`;

/** Resolves once the process has used no CPU for a second. */
async function untilIdle(pid) {
  let last = -1;
  let sinceMs = Date.now();
  for (;;) {
    const ticks = cpuTicks(pid);
    if (ticks !== last) {
      last = ticks;
      sinceMs = Date.now();
    }
    if (Date.now() - sinceMs >= QUIET_MS) return;
    await sleep(50);
  }
}

const rows = [];
for (const { label, root } of checkouts()) {
  const proxy = spawn(
    process.execPath,
    [notegateCli(root), 'proxy', '--resource', 'http://127.0.0.1:9/mcp', '--trusted-issuer', 'http://127.0.0.1:9'],
    {
      stdio: ['pipe', 'pipe', 'ignore'],
      env: { ...process.env, SPIFFE_ENDPOINT_SOCKET: 'unix:///nonexistent/agent.sock' },
    },
  );
  try {
    await untilIdle(proxy.pid);
    const idleKiB = statusKiB(proxy.pid, 'VmRSS');
    const readBefore = bytesRead(proxy.pid);
    const input = 'x\n'.repeat(LINES);
    proxy.stdin.write(input);
    await untilIdle(proxy.pid);
    const taken = bytesRead(proxy.pid) - readBefore;
    const floodedKiB = statusKiB(proxy.pid, 'VmRSS');
    const startedMs = performance.now();
    let answers = 0;
    await new Promise((resolve) => {
      proxy.stdout.on('data', (chunk) => {
        for (let at = chunk.indexOf(0x0a); at !== -1; at = chunk.indexOf(0x0a, at + 1)) answers += 1;
        if (answers === LINES) resolve();
      });
    });
    rows.push([
      label,
      mib(idleKiB),
      `${(taken / 1024).toFixed(0)} KiB of ${(input.length / 1024).toFixed(0)} KiB`,
      mib(floodedKiB),
      mib(statusKiB(proxy.pid, 'VmHWM')),
      `${((performance.now() - startedMs) / 1000).toFixed(1)} s`,
    ]);
  } finally {
    proxy.kill('SIGKILL');
  }
}
printTable(
  `notegate proxy: ${LINES} lines that are not JSON (${(2 * LINES) / 1e6} MB) on stdin while stdout is unread, then read`,
  [
    'proxy',
    'resident at rest',
    'stdin read while stdout unread',
    'resident then',
    'peak resident',
    'all answered after',
  ],
  rows,
);
