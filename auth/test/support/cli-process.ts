import { execFile, spawn } from 'node:child_process';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Registrar } from './cleanups.js';
import { waitFor } from './wait-for.js';

export const MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

/** The program a command run in this process reports for `--version`. */
export const TEST_PROGRAM = { name: 'notegate', version: '0.0.0-test' } as const;

export interface Finished {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `notegate <args>` to completion. */
export async function runNotegate(args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<Finished> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [MAIN, ...args], { env });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const failed = err instanceof Error ? { ...err } : {};
    const code = 'code' in failed && typeof failed.code === 'number' ? failed.code : -1;
    const stdout = 'stdout' in failed ? String(failed.stdout) : '';
    const stderr = 'stderr' in failed ? String(failed.stderr) : '';
    return { code, stdout, stderr };
  }
}

/** Starts a long-running `notegate <args>`, killed after the test, and waits for its first stdout line. */
export async function startNotegate(t: TestContext, args: readonly string[], env: NodeJS.ProcessEnv = process.env) {
  const { child, output } = spawnNode(t, [MAIN, ...args], env);
  await waitFor('the listening line', () => output.stdout.includes('\n'), 10_000);
  return { child, output };
}

/** Runs `node <args>` with its output collected, killed after the test; `exited` resolves with its exit code. */
export function spawnNode(t: Registrar, args: readonly string[], env: NodeJS.ProcessEnv = process.env) {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  t.after(() => child.kill('SIGKILL'));
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => {
    output.stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output.stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output, exited };
}
