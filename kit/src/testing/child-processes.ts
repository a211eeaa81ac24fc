import type { ChildProcess } from 'node:child_process';
import { type Registrar, spawnInGroup } from './process-groups.js';

export interface Finished {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `command` to completion in a process group of its own, killed after the test `t` (if given). */
export async function runInGroup(
  t: Registrar | undefined,
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  cwd?: string,
): Promise<Finished> {
  const child = spawnInGroup(t, command, args, { stdio: ['ignore', 'pipe', 'pipe'], env, ...(cwd && { cwd }) });
  const output = collectOutput(child);
  // 'close', not 'exit': the output is complete only once the pipes are drained.
  const code = await new Promise<number | null>((resolve) => child.once('close', (exitCode) => resolve(exitCode)));
  return { code: code ?? -1, ...output };
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
