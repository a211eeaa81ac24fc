import type { ChildProcess, SpawnOptions } from 'node:child_process';
import { spawn } from 'node:child_process';

/** Ours: how much of each child's stdout/stderr is kept (the tail), so a long-running child stays bounded. */
const KEPT_OUTPUT_CHARS = 256 * 1024;
/** Ours: how long a child gets after SIGTERM to remove its sockets before SIGKILL. */
const STOP_GRACE_MS = 3_000;

export interface ChildOutput {
  stdout: string;
  stderr: string;
}

export interface RunningChild {
  readonly name: string;
  readonly pid: number;
  readonly output: ChildOutput;
  /** Resolves with the exit code (or the signal name) once the process has exited. */
  readonly exited: Promise<number | NodeJS.Signals>;
  /** How it ended, once it has; undefined while it runs. */
  readonly endedWith: number | NodeJS.Signals | undefined;
  /** Called with each complete line of stdout or stderr as it arrives. */
  onLine(listener: (line: string) => void): void;
  /** Called after every chunk of output until the returned function is called. */
  onOutput(listener: () => void): () => void;
}

/** How a child is started besides its command line: another user (root only), environment, folder. */
export interface ChildStartOptions {
  readonly uid?: number;
  readonly gid?: number;
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
}

/**
 * Starts a process that leads a process group of its own. Tests pass one that also registers the
 * group with their cleanups, so a test that dies still takes its children with it.
 */
export type GroupSpawner = (command: string, args: readonly string[], options: SpawnOptions) => ChildProcess;

const detachedSpawn: GroupSpawner = (command, args, options) => spawn(command, args, { ...options, detached: true });

/**
 * Every process a program starts, each in a process group of its own (detached), so a terminal's
 * Ctrl-C reaches only the program, which then stops them in order; stopping signals the whole
 * group, so nothing a child might start survives it.
 */
export class ChildProcesses {
  readonly #running = new Map<ChildProcess, RunningChild>();
  readonly #spawn: GroupSpawner;

  constructor(spawnGroup: GroupSpawner = detachedSpawn) {
    this.#spawn = spawnGroup;
  }

  /** Starts `command args` with its stdout/stderr collected (stdin closed). */
  start(name: string, command: string, args: readonly string[], options: ChildStartOptions = {}): RunningChild {
    const child = this.#spawn(command, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(options.uid === undefined ? {} : { uid: options.uid }),
      ...(options.gid === undefined ? {} : { gid: options.gid }),
      ...(options.env === undefined ? {} : { env: options.env }),
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    });
    const pid = child.pid;
    if (pid === undefined) throw new Error(`cannot start ${name}: no process id`);
    const output: ChildOutput = { stdout: '', stderr: '' };
    const lineListeners: ((line: string) => void)[] = [];
    const outputListeners = new Set<() => void>();
    for (const stream of ['stdout', 'stderr'] as const) {
      let partial = '';
      child[stream]?.setEncoding('utf8').on('data', (chunk: string) => {
        output[stream] = keepTail(output[stream] + chunk);
        const lines = (partial + chunk).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) for (const listener of lineListeners) listener(line);
        for (const listener of outputListeners) listener();
      });
    }
    let endedWith: number | NodeJS.Signals | undefined;
    const exited = new Promise<number | NodeJS.Signals>((resolve) => {
      // 'close' (not 'exit'): resolves after the pipes are drained, so the output is complete.
      child.once('close', (code, signal) => {
        this.#running.delete(child);
        endedWith = code ?? signal ?? -1;
        resolve(endedWith);
      });
    });
    const running: RunningChild = {
      name,
      pid,
      output,
      exited,
      get endedWith() {
        return endedWith;
      },
      onLine: (listener) => lineListeners.push(listener),
      onOutput: (listener) => {
        outputListeners.add(listener);
        return () => outputListeners.delete(listener);
      },
    };
    this.#running.set(child, running);
    return running;
  }

  /** SIGTERM to every group (servers remove their sockets), then SIGKILL to those still up after the grace. */
  stopAll(): Promise<void> {
    return this.stop([...this.#running.values()]);
  }

  /** The same for some of them. */
  async stop(children: readonly RunningChild[], graceMs = STOP_GRACE_MS): Promise<void> {
    for (const child of children) signalGroup(child.pid, 'SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), graceMs);
    });
    const all = Promise.all(children.map((child) => child.exited)).then(() => 'done' as const);
    const outcome = await Promise.race([all, late]);
    clearTimeout(timer);
    if (outcome === 'late') {
      for (const child of children) signalGroup(child.pid, 'SIGKILL');
      await all;
    }
  }

  /** Last resort at process exit (synchronous): SIGKILL every group still running. */
  killAllNow(): void {
    for (const child of this.#running.values()) signalGroup(child.pid, 'SIGKILL');
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    // Negative pid: the whole process group the detached child leads.
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

function keepTail(text: string): string {
  return text.length <= KEPT_OUTPUT_CHARS ? text : text.slice(text.length - KEPT_OUTPUT_CHARS);
}

/** The last lines of a child's output, indented after a colon, for the end of an error message. */
export function outputTail(text: string, lines = 5): string {
  const last = text.trim().split('\n').filter(Boolean).slice(-lines);
  return last.length === 0 ? '' : `:\n    ${last.join('\n    ')}`;
}
