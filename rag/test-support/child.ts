import type { ChildProcess, ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type Finished, runInGroup, spawnInGroup } from '@notegate/kit/testing';

export interface Child {
  readonly process: ChildProcessWithoutNullStreams;
  /** Resolves with the first stdout line matching, or rejects when the process ends first or time runs out. */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  readonly lines: string[];
  exited(): Promise<number | null>;
}

/** A child spawned with `stdio: 'pipe'` has all three streams; the type cannot know it. */
function piped(child: ChildProcess): ChildProcessWithoutNullStreams {
  if (!child.stdin || !child.stdout || !child.stderr) throw new Error('the child was spawned without pipes');
  return child as ChildProcessWithoutNullStreams;
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
  const child = piped(spawnInGroup(t, process.execPath, [script, ...args], { ...options, stdio: 'pipe' }));
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

/** Runs a compiled script with node to completion (as `spawnNode`: its group dies with the test). */
export function runNode(
  t: TestContext,
  script: string,
  args: readonly string[],
  options: { readonly env?: NodeJS.ProcessEnv; readonly cwd?: string } = {},
): Promise<Finished> {
  return runInGroup(t, process.execPath, [script, ...args], options.env, options.cwd);
}

export function indexChildScript(): string {
  return path.join(path.dirname(fileURLToPath(import.meta.url)), 'index-child.js');
}

/** The repository's compiled CLI. */
export function cliPath(): string {
  return path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'src', 'cli', 'main.js');
}
