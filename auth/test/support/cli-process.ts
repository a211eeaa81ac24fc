import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { CommandIo } from '../../src/cli/command.js';
import type { Registrar } from './cleanups.js';
import { spawnInGroup } from './process-groups.js';
import { waitFor } from './wait-for.js';

export const MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

export interface Finished {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `notegate <args>` to completion (its process group is killed if the test process ends first). */
export function runNotegate(args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<Finished> {
  return runInGroup(undefined, process.execPath, [MAIN, ...args], env);
}

/** Runs `command` to completion in a process group of its own, killed after the test `t` (if given). */
export async function runInGroup(
  t: Registrar | undefined,
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<Finished> {
  const child = spawnInGroup(t, command, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  const output = collectOutput(child);
  // 'close', not 'exit': the output is complete only once the pipes are drained.
  const code = await new Promise<number | null>((resolve) => child.once('close', (exitCode) => resolve(exitCode)));
  return { code: code ?? -1, ...output };
}

/** Starts a long-running `notegate <args>`, killed after the test, and waits for its first stdout line. */
export async function startNotegate(t: TestContext, args: readonly string[], env: NodeJS.ProcessEnv = process.env) {
  const { child, output } = spawnNode(t, [MAIN, ...args], env);
  await waitFor('the listening line', () => output.stdout.includes('\n'));
  return { child, output };
}

/**
 * Runs `node <args>` with its output collected, in a process group of its own that is killed after
 * the test (`t`; without one, when the test process ends); `exited` resolves with its exit code.
 */
export function spawnNode(t: Registrar | undefined, args: readonly string[], env: NodeJS.ProcessEnv = process.env) {
  const child = spawnInGroup(t, process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  const output = collectOutput(child);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output, exited };
}

/** What the child prints, kept as it arrives. */
function collectOutput(child: ChildProcess): { stdout: string; stderr: string } {
  const output = { stdout: '', stderr: '' };
  child.stdout?.on('data', (chunk: Buffer) => {
    output.stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output.stderr += chunk.toString();
  });
  return output;
}

/** A CommandIo that keeps what a command prints, for running commands in this process. */
export function capturedIo() {
  const output = { stdout: '', stderr: '' };
  const io: CommandIo = {
    stdout: (text) => {
      output.stdout += text;
    },
    stderr: (text) => {
      output.stderr += text;
    },
  };
  return { io, output };
}

/** Checks that `--help` output has a line for each option, each naming its default or that it is required. */
export function assertOptionsDocumented(help: string, options: readonly string[]): void {
  for (const option of options) {
    const line = help.split('\n').find((text) => text.startsWith(`  ${option} `));
    assert.ok(line, `--help lists ${option}`);
    assert.match(line, /\((default: .+|required)\)$/, `${option} names its default`);
  }
}
