import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import type { Timers } from './timers.js';

export interface ChildExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** The child could not be started; exit codes as a shell gives them (126 not executable, 127 not found). */
export class SpawnError extends Error {
  readonly exitCode: number;

  constructor(command: string, err: NodeJS.ErrnoException) {
    super(`cannot start ${command}: ${err.code ?? err.message}`);
    this.name = 'SpawnError';
    this.exitCode = err.code === 'ENOENT' ? 127 : 126;
  }
}

/** A process's exit code for a child exit: its own code, or 128 + the signal number for a signal death. */
export function exitCodeFor(exit: ChildExit): number {
  if (exit.code !== null) return exit.code;
  const number = exit.signal === null ? undefined : constants.signals[exit.signal];
  return 128 + (number ?? 0);
}

/**
 * The wrapped command: started with the wrapper's stdin, stdout and stderr (it speaks MCP over them)
 * and the environment it is given; signalled on request; stopped with SIGTERM, then SIGKILL after a
 * grace period.
 */
export class SupervisedChild {
  readonly exited: Promise<ChildExit>;
  readonly #process: ChildProcess;
  #exit: ChildExit | undefined;

  private constructor(process: ChildProcess) {
    this.#process = process;
    this.exited = new Promise((resolve) => {
      process.once('exit', (code, signal) => {
        this.#exit = { code, signal };
        resolve(this.#exit);
      });
    });
  }

  static start(command: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<SupervisedChild> {
    return new Promise((resolve, reject) => {
      const child = spawn(command, [...args], { stdio: 'inherit', env });
      child.once('spawn', () => resolve(new SupervisedChild(child)));
      child.on('error', (err) => reject(new SpawnError(command, err)));
    });
  }

  signal(signal: NodeJS.Signals): void {
    if (this.#exit === undefined) this.#process.kill(signal);
  }

  /** SIGTERM now, SIGKILL if it is still running after `graceMs`; resolves once it has exited. */
  async stop(graceMs: number, timers: Timers): Promise<ChildExit> {
    this.signal('SIGTERM');
    const cancel = timers.schedule(() => this.signal('SIGKILL'), graceMs);
    try {
      return await this.exited;
    } finally {
      cancel();
    }
  }
}
