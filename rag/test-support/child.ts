import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';

export interface Child {
  readonly process: ChildProcessWithoutNullStreams;
  /** Resolves with the first stdout line matching, or rejects when the process ends first or time runs out. */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  readonly lines: string[];
  exited(): Promise<number | null>;
}

/**
 * Process groups still running: each child leads one (`detached`), so a kill of the group also
 * takes whatever the child started. Detached groups miss the terminal's Ctrl-C, so a test process
 * that is interrupted, terminated or exits kills them itself.
 */
const runningGroups = new Set<number>();

function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  const killAll = () => {
    for (const pgid of runningGroups) killGroup(pgid);
  };
  process.on('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    // Listening until the groups are dead: a second signal while they are killed (a test runner
    // forwards the SIGTERM its group got too) would otherwise end this process half-way.
    const onSignal = () => {
      killAll();
      process.off(signal, onSignal);
      // Then die of the signal as the default action would have.
      process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}

/**
 * Runs a compiled script with node in a process group of its own; after the test (passed, failed
 * or timed out) the group is killed and the child awaited.
 */
export function spawnNode(
  t: TestContext,
  script: string,
  args: readonly string[],
  options: { readonly env?: NodeJS.ProcessEnv; readonly cwd?: string } = {},
): Child {
  installExitHook();
  const child = spawn(process.execPath, [script, ...args], { ...options, stdio: 'pipe', detached: true });
  const pgid = child.pid;
  if (pgid !== undefined) runningGroups.add(pgid);
  const ended = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  t.after(async () => {
    if (pgid === undefined) return;
    // Also after the child's exit: anything it left behind in its group goes with the group.
    killGroup(pgid);
    await ended;
    runningGroups.delete(pgid);
  });
  const lines: string[] = [];
  const listeners = new Set<() => void>();
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(line);
    for (const listener of listeners) listener();
  });
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  exit.then(() => {
    for (const listener of listeners) listener();
  });
  return {
    process: child,
    lines,
    exited: () => exit,
    waitForLine: (pattern, timeoutMs = 60_000) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => finish(new Error(`no line matching ${pattern} within ${timeoutMs} ms`)),
          timeoutMs,
        );
        const check = () => {
          const line = lines.find((l) => pattern.test(l));
          if (line !== undefined) finish(undefined, line);
          else if (child.exitCode !== null || child.signalCode !== null) {
            finish(
              new Error(
                `process ended (${child.exitCode ?? child.signalCode}) before a line matching ${pattern}: ${lines.join(' | ')}`,
              ),
            );
          }
        };
        const finish = (err: Error | undefined, line?: string) => {
          clearTimeout(timer);
          listeners.delete(check);
          if (err) reject(err);
          else resolve(line ?? '');
        };
        listeners.add(check);
        check();
      }),
  };
}

export interface Finished {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a compiled script with node to completion (as `spawnNode`: its group dies with the test). */
export async function runNode(
  t: TestContext,
  script: string,
  args: readonly string[],
  options: { readonly env?: NodeJS.ProcessEnv; readonly cwd?: string } = {},
): Promise<Finished> {
  const child = spawnNode(t, script, args, options);
  const output = { stdout: '', stderr: '' };
  child.process.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output.stdout += chunk;
  });
  child.process.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    output.stderr += chunk;
  });
  const code = await child.exited();
  return { code, ...output };
}

export function indexChildScript(): string {
  return path.join(path.dirname(fileURLToPath(import.meta.url)), 'index-child.js');
}

/** The repository's compiled CLI. */
export function cliPath(): string {
  return path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'src', 'cli', 'main.js');
}
