// Pieces the hardening benchmarks share: checkouts to compare, server processes, latency summaries.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { reservePort } from '@notegate/kit/http';

/** This checkout: the one measured as "after", and where the test helpers come from. */
const AFTER = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** This checkout (after) and, with `--before DIR`, another built checkout of the repository to compare with. */
export function checkouts() {
  const at = process.argv.indexOf('--before');
  const list = [{ label: 'after', root: AFTER }];
  if (at !== -1) {
    const root = resolve(process.argv[at + 1] ?? '');
    if (!existsSync(join(root, 'auth/dist/src/cli/main.js'))) throw new Error(`--before ${root}: not a built checkout`);
    list.unshift({ label: 'before', root });
  }
  return list;
}

export const notegateCli = (root) => join(root, 'auth/dist/src/cli/main.js');
export const ragCli = (root) => join(root, 'rag/dist/src/cli/main.js');

/**
 * `notegate notes-server` of checkout `root` on a free port, its notes and audit log in `dir` (named by
 * `label`), with a test issuer (this checkout's) for its tokens; `stop` ends both.
 */
export async function startNotesServer(root, dir, label) {
  const { TestAccessTokenIssuer } = await import(join(AFTER, 'auth/dist/test/support/access-token-issuer.js'));
  const endpoint = `http://127.0.0.1:${await reservePort()}/mcp`;
  const issuer = await TestAccessTokenIssuer.start(endpoint);
  const server = await startServer([
    notegateCli(root),
    'notes-server',
    '--resource',
    endpoint,
    '--issuer',
    issuer.issuer,
    '--jwks-uri',
    issuer.jwksUri,
    '--notes-dir',
    join(dir, `notes-${label}`),
    '--audit-log',
    join(dir, `notes-${label}.log`),
  ]);
  return {
    endpoint,
    pid: server.pid,
    issuer,
    stop: async () => {
      await server.stop();
      await issuer.close();
    },
  };
}

/** Starts `node <args>`; resolves once it printed "listening on <url>", with its pid and a stop function. */
export function startServer(args, env = process.env) {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolvePromise, reject) => {
    let stdout = '';
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}: ${stderr}`)));
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      const match = /listening on (\S+)/.exec(stdout);
      if (match) {
        child.removeAllListeners('exit');
        resolvePromise({ pid: child.pid, url: match[1], stop: () => stop(child) });
      }
    });
  });
}

function stop(child) {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolvePromise) => {
    child.once('exit', () => resolvePromise());
    child.kill('SIGTERM');
  });
}

/** Nearest-rank quantile of milliseconds. */
export function quantile(samplesMs, q) {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}

export function ms(value) {
  return Number.isFinite(value) ? `${value.toFixed(value < 10 ? 1 : 0)} ms` : 'n/a';
}

export function printTable(title, headers, rows) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i] ?? '').length)));
  const line = (cells) => `| ${cells.map((c, i) => String(c).padEnd(widths[i])).join(' | ')} |`;
  console.log(`\n${title}\n`);
  console.log(line(headers));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const row of rows) console.log(line(row));
}

export const sleep = (delayMs) => new Promise((resolvePromise) => setTimeout(resolvePromise, delayMs));
