import type { ChildProcesses, ChildStartOptions, RunningChild } from '../../shared/child-processes.js';
import { outputTail } from '../../shared/child-processes.js';

/** Ours: a SPIRE CLI call answers within a second; this only catches one that hangs. */
const COMMAND_TIMEOUT_MS = 30_000;
/** Ours: how often a readiness check is repeated. */
const POLL_INTERVAL_MS = 100;

/** Something of the local SPIRE deployment failed; the message says what, with the end of the daemon's log. */
export class SpireDeploymentError extends Error {
  readonly code = 'ERR_SPIRE_DEPLOYMENT';

  constructor(message: string) {
    super(message);
    this.name = 'SpireDeploymentError';
  }
}

export interface CommandResult {
  readonly code: number | NodeJS.Signals;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a SPIRE CLI command to its end as a tracked child (so stopping everything stops it too). */
export async function runCommand(
  children: ChildProcesses,
  name: string,
  command: string,
  args: readonly string[],
  options: ChildStartOptions = {},
): Promise<CommandResult> {
  const child = children.start(name, command, args, options);
  const timer = setTimeout(() => void children.stop([child], 0), COMMAND_TIMEOUT_MS);
  const code = await child.exited;
  clearTimeout(timer);
  return { code, stdout: child.output.stdout, stderr: child.output.stderr };
}

/** The same, for a command that must succeed: its stdout, or an error with its stderr. */
export async function commandOutput(
  children: ChildProcesses,
  name: string,
  command: string,
  args: readonly string[],
): Promise<string> {
  const result = await runCommand(children, name, command, args);
  if (result.code !== 0) {
    throw new SpireDeploymentError(`${name} failed (exit ${result.code})${outputTail(result.stderr || result.stdout)}`);
  }
  return result.stdout;
}

/**
 * Repeats `check` until it resolves true. Fails when `daemon` exits first (with the end of its log)
 * or after `timeoutMs` (a hang detector, far above what a busy machine needs).
 */
export async function waitUntil(
  what: string,
  check: () => Promise<boolean>,
  daemon: RunningChild,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (daemon.endedWith !== undefined) {
      throw new SpireDeploymentError(
        `${daemon.name} exited (${daemon.endedWith}) before ${what}${outputTail(logOf(daemon))}`,
      );
    }
    if (await check()) return;
    if (Date.now() > deadline) {
      throw new SpireDeploymentError(
        `timed out after ${timeoutMs / 1000} s waiting for ${what}${outputTail(logOf(daemon))}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
  }
}

/** What a daemon wrote: SPIRE logs to stdout; a crash ends on stderr. */
export function logOf(child: RunningChild): string {
  return `${child.output.stdout}\n${child.output.stderr}`;
}
