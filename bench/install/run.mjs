#!/usr/bin/env node
// What installing notegate costs, for one commit of this repository (docs/install.md#measurements):
//   development install: `npm ci` in a fresh clone (plus `npm run test-tools` where the commit has it);
//   runtime install: the clone's workspaces packed, the tarballs installed into an empty prefix as `npm install -g`
//   does, again without install scripts (the difference is the native build), then (--vectors)
//   @huggingface/transformers added beside the first.
// Each row: wall time, size on disk, packages npm added, and npm's warnings. The npm cache is whatever the user's is
// (warm after the first run); better-sqlite3 compiles from source where its prebuilt binary cannot be fetched.
// Usage: node bench/install/run.mjs [--ref REF ...] [--vectors]   (default: HEAD; several --ref run one after the other)
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const { values } = parseArgs({
  options: { ref: { type: 'string', multiple: true, default: ['HEAD'] }, vectors: { type: 'boolean', default: false } },
});

/** onnxruntime-node's install script would fetch CUDA libraries; the old layout installs it even at run time. */
const ENV = { ...withoutNpmRunVariables(process.env), ONNXRUNTIME_NODE_INSTALL: 'skip' };
/** The install scripts the runtime needs: the SQLite binding, and protobufjs under @grpc/proto-loader. */
const ALLOW_SCRIPTS = '--allow-scripts=better-sqlite3,protobufjs';

function withoutNpmRunVariables(env) {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !/^(npm_|INIT_CWD$)/i.test(name)));
}

function run(command, args, cwd) {
  return new Promise((resolve, reject) => {
    const startMs = performance.now();
    const child = spawn(command, args, { cwd, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const seconds = (performance.now() - startMs) / 1000;
      if (code !== 0) reject(new Error(`${command} ${args.join(' ')} exited ${code}\n${output}`));
      else resolve({ seconds, output });
    });
  });
}

async function sizeMb(dir) {
  const { output } = await run('du', ['-sk', dir], ROOT);
  return Math.round(Number.parseInt(output, 10) / 1024);
}

/** npm's warnings, one entry per kind: the packages EBADENGINE and install-scripts name, any other line whole. */
function warnings(output) {
  const kinds = new Map();
  const add = (kind, what) => kinds.set(kind, new Set([...(kinds.get(kind) ?? []), what]));
  for (const line of output.split('\n')) {
    const engine = /^npm warn EBADENGINE\s+package: '([^']+)'/.exec(line);
    const script = /^npm warn install-scripts\s+(\S+@\S+) \(/.exec(line);
    if (engine) add('EBADENGINE', engine[1]);
    else if (script) add('install-scripts', script[1]);
    else if (/^npm warn (?!EBADENGINE|install-scripts)/.test(line)) add('other', line.replace(/^npm warn /, ''));
  }
  return kinds.size === 0 ? 'none' : [...kinds].map(([kind, what]) => `${kind}: ${[...what].join(', ')}`).join('; ');
}

const added = (output) => /added (\d+) packages/.exec(output)?.[1] ?? '?';

async function measureRef(ref) {
  const top = mkdtempSync(join(tmpdir(), 'notegate-install-bench-'));
  const rows = [];
  try {
    const clone = join(top, 'clone');
    await run('git', ['clone', '--quiet', ROOT, clone], top);
    await run('git', ['checkout', '--quiet', ref], clone);
    const commit = (await run('git', ['rev-parse', '--short', 'HEAD'], clone)).output.trim();
    const label = `${ref} (${commit})`;

    const ci = await run('npm', ['ci', '--no-audit', '--no-fund'], clone);
    rows.push([label, 'development: npm ci', ci, await sizeMb(join(clone, 'node_modules'))]);
    const scripts = JSON.parse((await run('npm', ['pkg', 'get', 'scripts'], clone)).output);
    if (scripts['test-tools']) {
      const tools = await run('npm', ['run', 'test-tools'], clone);
      rows.push([label, 'development: npm run test-tools', tools, await sizeMb(join(clone, 'tools'))]);
    }

    const tarballs = join(top, 'tarballs');
    const prefix = join(top, 'prefix');
    mkdirSync(tarballs);
    mkdirSync(prefix);
    await run('npm', ['pack', '--workspaces', '--pack-destination', tarballs], clone);
    const files = readdirSync(tarballs).map((file) => join(tarballs, file));
    const install = await run(
      'npm',
      ['install', '--global', '--prefix', prefix, ALLOW_SCRIPTS, '--no-audit', '--no-fund', ...files],
      top,
    );
    rows.push([label, `runtime: npm install -g (${files.length} tarballs)`, install, await sizeMb(prefix)]);
    // The same without install scripts: the difference is better-sqlite3's native build (where it compiles).
    const bare = join(top, 'prefix-ignore-scripts');
    mkdirSync(bare);
    const noScripts = await run(
      'npm',
      ['install', '--global', '--prefix', bare, '--ignore-scripts', '--no-audit', '--no-fund', ...files],
      top,
    );
    rows.push([label, 'runtime, --ignore-scripts (no native build)', noScripts, await sizeMb(bare)]);
    // Where transformers is an optional peer; before that it was part of the runtime install already.
    const range = JSON.parse(readFileSync(join(clone, 'rag', 'package.json'), 'utf8')).peerDependencies?.[
      '@huggingface/transformers'
    ];
    if (values.vectors && range) {
      const vectors = await run(
        'npm',
        [
          'install',
          '--global',
          '--prefix',
          prefix,
          '--allow-scripts=onnxruntime-node,protobufjs',
          '--no-audit',
          '--no-fund',
          `@huggingface/transformers@${range}`,
        ],
        top,
      );
      rows.push([label, 'runtime: + @huggingface/transformers (vectors)', vectors, await sizeMb(prefix)]);
    }
  } finally {
    rmSync(top, { recursive: true, force: true });
  }
  return rows;
}

const rows = [];
for (const ref of values.ref) rows.push(...(await measureRef(ref)));
const table = [
  ['commit', 'install', 'time (s)', 'size (MB)', 'packages added', 'npm warnings'],
  ...rows.map(([label, what, result, mb]) => [
    label,
    what,
    result.seconds.toFixed(0),
    String(mb),
    added(result.output),
    warnings(result.output),
  ]),
];
for (const [index, row] of table.entries()) {
  process.stdout.write(`| ${row.join(' | ')} |\n`);
  if (index === 0) process.stdout.write(`|${row.map(() => ' --- ').join('|')}|\n`);
}
