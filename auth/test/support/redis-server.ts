import { type ChildProcess, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { reservePort } from '@notegate/kit/http';
import type { Registrar } from '@notegate/kit/testing';
import { killGroups, spawnInGroup } from '@notegate/kit/testing';
import type { RedisConnection } from '../../src/authz/replay/redis-replay-store.js';

const READY_TIMEOUT_MS = 10_000;

/**
 * The option that skips a test needing redis-server where it is not installed, with the reason
 * (`.ci/run` installs Debian's package, so CI always runs them); false where it is installed.
 */
export const NEEDS_REDIS_SERVER: { readonly skip: string | false } = {
  skip:
    spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0
      ? false
      : 'redis-server is not installed (Debian package redis-server; .ci/run installs it)',
};

/** A real redis-server (Debian's package) of one test: its own port, its own directory, no persistence. */
export interface RedisServer {
  readonly port: number;
  /** `redis://127.0.0.1:<port>/0` */
  readonly url: string;
  /** Stops it (SIGKILL to its process group); its data is gone. */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty, with `args` in place of the ones it had (the same by default). */
  restart(args?: readonly string[]): Promise<void>;
  /** Freezes it (SIGSTOP): connections stay open, nothing is answered. */
  pause(): void;
  /** Thaws it (SIGCONT). */
  resume(): void;
}

/**
 * Starts redis-server on a free loopback port with a temporary directory, and `args` for its
 * configuration (`--maxmemory-policy allkeys-lru`, `--requirepass …`); the registrar stops it and
 * removes the directory, also when the test fails or times out. `.ci/run` installs the package.
 */
export async function startRedisServer(t: Registrar, args: readonly string[] = []): Promise<RedisServer> {
  const port = await reservePort();
  const dir = await mkdtemp(join(tmpdir(), 'notegate-redis-'));
  // Nothing of redis lives there (no persistence): the cleanups may run in any order.
  t.after(() => rm(dir, { recursive: true, force: true }));
  let current = args;
  let child: ChildProcess | undefined = await spawnRedis(t, port, dir, current);
  const stop = async () => {
    const running = child;
    child = undefined;
    if (running) await killGroups(running);
  };
  return {
    port,
    url: `redis://127.0.0.1:${port}/0`,
    stop,
    restart: async (next = current) => {
      await stop();
      current = next;
      child = await spawnRedis(t, port, dir, current);
    },
    pause: () => signal(child, 'SIGSTOP'),
    resume: () => signal(child, 'SIGCONT'),
  };
}

/** A redis:// connection to 127.0.0.1:`port`, database 0, no credentials (nothing need listen there). */
export function localRedisConnection(port: number): RedisConnection {
  const display = `redis://127.0.0.1:${port}/0`;
  return { host: '127.0.0.1', port, db: 0, tls: false, username: undefined, password: undefined, display };
}

function signal(child: ChildProcess | undefined, name: NodeJS.Signals): void {
  if (child?.pid === undefined) throw new Error('redis-server is not running');
  process.kill(child.pid, name);
}

function spawnRedis(t: Registrar, port: number, dir: string, extra: readonly string[]): Promise<ChildProcess> {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'];
  const child = spawnInGroup(t, 'redis-server', [...args, ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void killGroups(child);
      reject(new Error(`redis-server did not get ready within ${READY_TIMEOUT_MS} ms: ${output}`));
    }, READY_TIMEOUT_MS);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`cannot start redis-server (Debian package redis-server; .ci/run installs it): ${err.message}`));
    });
    const exitedEarly = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}: ${output}`));
    };
    child.once('exit', exitedEarly);
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (!output.includes('Ready to accept connections')) return;
      clearTimeout(timer);
      // Only ours: the process-group bookkeeping listens for 'exit' too.
      child.off('exit', exitedEarly);
      child.stdout?.removeAllListeners('data');
      child.stdout?.resume();
      child.stderr?.resume();
      resolve(child);
    });
  });
}
