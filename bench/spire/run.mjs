#!/usr/bin/env node
// SPIRE 1.15.3 on this machine, measured in one run (docs/demo.md#spire-on-this-machine):
//   build   `npm run spire:build` into an empty folder with Go's caches as they are (warm), then again
//           (the build found and reused); with BENCH_SPIRE_COLD=1 also with empty module and build
//           caches (cold: every module is fetched again, minutes)
//   deploy  start-to-ready of the local deployment (server, agents, every workload able to fetch its
//           SVID), both layouts where this user can run them, interleaved rounds
//   demo    wall time of `notegate demo` on the development identity provider and on SPIRE, interleaved
//   tokens  POST /token per second of two `notegate authz` processes, one streaming its JWT bundle from
//           SPIRE's agent and one from the development identity provider, each presented an SVID of
//           its source; servers pinned to core 0, autocannon on core 1, rounds interleaved
// Run after `npx tsc -b` and `npm run spire:build`:
//   node bench/spire/run.mjs [build|deploy|demo|tokens ...]   (env: BENCH_ROUNDS=5 BENCH_REQUESTS=4000)
import { execFile, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { reservePort } from '@notegate/kit/http';
import { spireLayoutTargets } from '../../auth/dist/src/demo/spire-identity.js';
import { DevelopmentIdentityProvider } from '../../auth/dist/src/identity-provider/identity-provider.js';
import { decideSpireLayout } from '../../auth/dist/src/identity-provider/spire/layout.js';
import {
  DEFAULT_SPIRE_BIN_DIR,
  findSpireBinaries,
} from '../../auth/dist/src/identity-provider/spire/spire-binaries.js';
import { SpireDeployment } from '../../auth/dist/src/identity-provider/spire/spire-deployment.js';
import { ChildProcesses } from '../../auth/dist/src/shared/child-processes.js';
import { parseWorkloadApiAddress } from '../../auth/dist/src/spiffe/workload-api/address.js';
import { WorkloadApiClient } from '../../auth/dist/src/spiffe/workload-api/client.js';
import { cpuSeconds, runJson, startServer } from '../authz/processes.mjs';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 4_000);
const WARMUP_REQUESTS = 500;
const CONNECTIONS = 20;
const here = (name) => fileURLToPath(new URL(name, import.meta.url));
const ROOT = here('../../');
const CLI = here('../../auth/dist/src/cli/main.js');
const BUILD = here('../../deploy/spire/build/build.sh');
const WORKLOADS = [
  { name: 'agent', spiffeId: 'spiffe://example.org/agent' },
  { name: 'reader', spiffeId: 'spiffe://example.org/reader' },
  { name: 'authz', spiffeId: 'spiffe://example.org/authz' },
];
const sections = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['build', 'deploy', 'demo', 'tokens'];
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const fmt = (values, digits = 1) => values.map((v) => v.toFixed(digits)).join('  ');
const rotate = (list, by) => list.map((_, i) => list[(i + by) % list.length]);

const lookup = await findSpireBinaries(process.env.NOTEGATE_SPIRE_BIN || DEFAULT_SPIRE_BIN_DIR);
if (!lookup.found) {
  console.error(`${lookup.reason}: run npm run spire:build first`);
  process.exit(2);
}
const binaries = lookup.binaries;
console.log(`node ${process.version}, ${spawnSync('go', ['version'], { encoding: 'utf8' }).stdout.trim() || 'no Go'}`);

async function timed(fn) {
  const started = performance.now();
  await fn();
  return (performance.now() - started) / 1000;
}

function scratch(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

async function build() {
  const runBuild = (env) =>
    promisify(execFile)('bash', [BUILD], { env: { ...process.env, ...env }, maxBuffer: 1 << 24 });
  const bin = scratch('spire-bench-bin-');
  const rows = [];
  try {
    if (process.env.BENCH_SPIRE_COLD === '1') {
      const caches = scratch('spire-bench-cache-');
      const cold = scratch('spire-bench-cold-bin-');
      const env = {
        NOTEGATE_SPIRE_BIN: cold.dir,
        GOMODCACHE: join(caches.dir, 'mod'),
        GOCACHE: join(caches.dir, 'build'),
      };
      rows.push(['cold (empty module and build caches)', await timed(() => runBuild(env))]);
      // The module cache is written read-only.
      spawnSync('chmod', ['-R', 'u+w', caches.dir]);
      caches.remove();
      cold.remove();
    }
    rows.push([
      'warm (Go caches as they are, empty folder)',
      await timed(() => runBuild({ NOTEGATE_SPIRE_BIN: bin.dir })),
    ]);
    rows.push(['again (the build is found and reused)', await timed(() => runBuild({ NOTEGATE_SPIRE_BIN: bin.dir }))]);
  } finally {
    bin.remove();
  }
  console.log('\nnpm run spire:build');
  for (const [what, s] of rows) console.log(`  ${what.padEnd(44)} ${s.toFixed(1)} s`);
}

async function deploy() {
  const layouts = ['agent-per-workload'];
  if ((await decideSpireLayout('uid', spireLayoutTargets(binaries))).layout === 'uid') layouts.unshift('uid');
  const seconds = Object.fromEntries(layouts.map((layout) => [layout, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const layout of rotate(layouts, round)) {
      const { dir, remove } = scratch('spb-');
      const children = new ChildProcesses();
      let deployment;
      try {
        seconds[layout].push(
          await timed(async () => {
            deployment = await SpireDeployment.start({
              binaries,
              children,
              dir,
              trustDomain: 'example.org',
              workloads: WORKLOADS,
              layout,
            });
          }),
        );
      } finally {
        await deployment?.close();
        await children.stopAll();
        remove();
      }
    }
  }
  console.log(`\nSPIRE deployment, start to ready (3 workloads; every workload fetched its SVID), ${ROUNDS} rounds`);
  for (const layout of layouts) {
    console.log(
      `  ${layout.padEnd(20)} median ${median(seconds[layout]).toFixed(2)} s   runs ${fmt(seconds[layout], 2)}`,
    );
  }
}

async function demo() {
  const variants = [
    { name: 'development provider', args: [] },
    { name: 'SPIRE', args: ['--identity', 'spire'] },
  ];
  const seconds = Object.fromEntries(variants.map((v) => [v.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const variant of rotate(variants, round)) {
      seconds[variant.name].push(
        await timed(() =>
          promisify(execFile)(process.execPath, [CLI, 'demo', '--no-color', ...variant.args], { cwd: ROOT }),
        ),
      );
    }
  }
  console.log(`\nnotegate demo, wall time, ${ROUNDS} interleaved rounds`);
  for (const { name } of variants) {
    console.log(`  ${name.padEnd(20)} median ${median(seconds[name]).toFixed(1)} s   runs ${fmt(seconds[name])}`);
  }
  const ratios = seconds.SPIRE.map((s, i) => s / seconds['development provider'][i]);
  console.log(`  SPIRE / development: median of per-round ratios ${median(ratios).toFixed(2)}`);
}

/** A Workload API client on a socket path. */
const clientOn = (socket) => new WorkloadApiClient({ address: parseWorkloadApiAddress(`unix://${socket}`, 'bench') });

async function tokens() {
  const work = scratch('spire-bench-tokens-');
  const children = new ChildProcesses();
  const spireDir = join(work.dir, 'spire');
  const closers = [];
  try {
    mkdirSync(spireDir);
    const spire = await SpireDeployment.start({
      binaries,
      children,
      dir: spireDir,
      trustDomain: 'example.org',
      workloads: WORKLOADS,
      layout: 'agent-per-workload',
    });
    closers.push(() => spire.close());
    const provider = await DevelopmentIdentityProvider.start({
      config: { trustDomain: 'example.org', workloads: WORKLOADS },
      socketDir: join(work.dir, 'dev-sockets'),
      svidTtlS: 300,
      keyType: 'ec-p256',
    });
    closers.push(() => provider.stop());
    const socketOf = (workloadApi) => workloadApi.replace(/^unix:\/\//, '');
    const sources = [
      {
        name: 'bundle from SPIRE',
        authzSocket: socketOf(spire.workload('authz').workloadApi),
        agentSocket: socketOf(spire.workload('agent').workloadApi),
      },
      {
        name: 'bundle from the development provider',
        authzSocket: provider.socketPath('authz'),
        agentSocket: provider.socketPath('agent'),
      },
    ];
    for (const [index, source] of sources.entries()) {
      const port = await reservePort();
      source.issuer = `http://127.0.0.1:${port}`;
      const policy = join(work.dir, `policy-${index}.yaml`);
      writeFileSync(
        policy,
        `trust_domain: example.org\ngrants:\n  - spiffe_id: spiffe://example.org/agent\n    resources:\n      - resource: http://127.0.0.1:9/mcp\n        scopes: [notes:read]\n`,
        { mode: 0o644 },
      );
      source.server = await startServer(0, [
        CLI,
        'authz',
        '--issuer',
        source.issuer,
        '--policy',
        policy,
        '--workload-api',
        `unix://${source.authzSocket}`,
        '--svid-replay',
        'allow-reuse-within-lifetime',
        '--audit-log',
        '/dev/null',
      ]);
      closers.push(() => source.server.stop());
      const client = clientOn(source.agentSocket);
      const { svid } = await client.fetchJwtSvid({ audience: source.issuer });
      client.close();
      const body = new URLSearchParams({
        grant_type: 'client_credentials',
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-spiffe',
        client_assertion: svid,
        resource: 'http://127.0.0.1:9/mcp',
        scope: 'notes:read',
      });
      source.bodyFile = join(work.dir, `body-${index}.txt`);
      writeFileSync(source.bodyFile, body.toString());
      // Until its first bundle arrives authz answers 503: wait for a 200.
      const tokenUrl = new URL('/token', source.server.url);
      while ((await fetch(tokenUrl, { method: 'POST', body })).status !== 200) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      source.rates = [];
      source.cpu = [];
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const source of rotate(sources, round)) {
        const cpuBefore = cpuSeconds(source.server.pid);
        const result = await runJson(1, [
          here('token-load.mjs'),
          source.server.url,
          source.bodyFile,
          String(WARMUP_REQUESTS),
          String(REQUESTS),
          String(CONNECTIONS),
        ]);
        if ((result.statuses[200] ?? 0) !== REQUESTS)
          throw new Error(`${source.name}: ${JSON.stringify(result.statuses)}`);
        source.rates.push(result.tokensPerS);
        source.cpu.push((1000 * (cpuSeconds(source.server.pid) - cpuBefore)) / (REQUESTS + WARMUP_REQUESTS));
      }
    }
    console.log(
      `\nPOST /token, notegate authz pinned to one core, ${CONNECTIONS} connections, ${REQUESTS} requests, ${ROUNDS} interleaved rounds`,
    );
    for (const source of sources) {
      console.log(
        `  ${source.name.padEnd(38)} median ${median(source.rates).toFixed(0)} tokens/s   ${median(source.cpu).toFixed(2)} ms CPU/token   runs ${fmt(source.rates, 0)}`,
      );
    }
    const ratios = sources[0].rates.map((rate, i) => rate / sources[1].rates[i]);
    console.log(`  SPIRE / development: median of per-round ratios ${median(ratios).toFixed(2)}`);
  } finally {
    for (const close of closers.reverse()) await close();
    await children.stopAll();
    work.remove();
  }
}

const run = { build, deploy, demo, tokens };
for (const section of sections) {
  if (!run[section]) {
    console.error(`unknown section ${section} (build, deploy, demo, tokens)`);
    process.exit(2);
  }
  await run[section]();
}
