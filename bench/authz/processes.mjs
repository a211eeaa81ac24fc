// Child processes of the benchmark: pinned with taskset, read by PID from /proc, stopped by PID.
// The mcp-server bench reads its servers' CPU time with cpuSeconds from here too.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { reservePort } from '@notegate/kit/http';

/** The unit of utime and stime in /proc/<pid>/stat (sysconf _SC_CLK_TCK; Linux's USER_HZ is 100). */
const CLOCK_TICKS_PER_S = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;
/**
 * Processes pinned to one core get one libuv thread-pool thread (WebCrypto runs there): four
 * threads on one core only add futex hand-offs (strace: 9 futex calls per token instead of 3).
 * Applied alike to the ceiling loop and every server.
 */
const PINNED_ENV = { ...process.env, UV_THREADPOOL_SIZE: '1' };

/** Starts `node <args>` on `core`; resolves once it printed "listening on <url>". */
export function startServer(core, args) {
  const child = spawn('taskset', ['-c', String(core), process.execPath, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: PINNED_ENV,
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    let stdout = '';
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}: ${stderr}`)));
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      const match = /listening on (\S+)/.exec(stdout);
      if (match) resolve({ pid: child.pid, url: match[1], stop: () => stop(child) });
    });
  });
}

function stop(child) {
  child.removeAllListeners('exit');
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** Runs `node <args>` on `core` to completion and parses the JSON line it prints. */
export function runJson(core, args) {
  return new Promise((resolve, reject) => {
    const child = spawn('taskset', ['-c', String(core), process.execPath, ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: PINNED_ENV,
    });
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`${args.join(' ')} exited with ${code}`));
      else resolve(JSON.parse(stdout.trim().split('\n').at(-1)));
    });
  });
}

/** CPU seconds (user + system, all threads) the process has used so far; Linux /proc. */
export function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // After "(comm) ", utime and stime are the 12th and 13th fields (proc(5) fields 14 and 15).
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_S;
}

/** Peak and current resident set size in MiB (proc(5) VmHWM, VmRSS). */
export function memoryMiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (name) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? Number.NaN);
  return { peak: kib('VmHWM') / 1024, current: kib('VmRSS') / 1024 };
}

/**
 * A private redis-server (Debian's package) pinned to `core`, on a free port, data in `dir`, no
 * persistence; stopped by its process group.
 */
export async function startRedis(core, dir) {
  const port = await reservePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'];
  const child = spawn('taskset', ['-c', String(core), 'redis-server', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  await new Promise((resolve, reject) => {
    let output = '';
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${output}`)));
    child.stdout.on('data', (chunk) => {
      output += chunk;
      if (output.includes('Ready to accept connections')) resolve();
    });
  });
  child.removeAllListeners('exit');
  child.stdout.resume();
  return {
    pid: child.pid,
    url: `redis://127.0.0.1:${port}/0`,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        process.kill(-child.pid, 'SIGTERM');
      }),
  };
}
