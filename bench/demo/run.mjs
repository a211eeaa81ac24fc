#!/usr/bin/env node
// Wall time of `notegate demo` (the whole deployment started on loopback, four scenarios, everything
// stopped again) against the 20 s it should stay well under on a 2-core machine. The demo test
// checks what the demo does; how long it takes is measured here.
//   npx tsc -b && node bench/demo/run.mjs          (env: BENCH_ROUNDS=5)
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const BOUND_S = 20;
const CLI = join(dirname(fileURLToPath(import.meta.url)), '../../auth/dist/src/cli/main.js');

const seconds = [];
for (let round = 0; round < ROUNDS; round++) {
  const started = performance.now();
  await promisify(execFile)(process.execPath, [CLI, 'demo', '--no-color']);
  seconds.push((performance.now() - started) / 1000);
}
const sorted = [...seconds].sort((a, b) => a - b);
const median = sorted[Math.floor(sorted.length / 2)];
const worst = sorted[sorted.length - 1];
console.log(`node ${process.version}, ${ROUNDS} runs of notegate demo --no-color\n`);
console.log(`${'runs (s)'.padEnd(10)} ${seconds.map((s) => s.toFixed(1)).join('  ')}`);
const row = (label, s) =>
  console.log(`${label.padEnd(10)} ${s.toFixed(1)} s = ${((100 * s) / BOUND_S).toFixed(0)}% of ${BOUND_S} s`);
row('median', median);
row('slowest', worst);
