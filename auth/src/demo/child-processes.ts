import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The `notegate` entry point the demo starts its processes from (the same build as the demo itself). */
const NOTEGATE_MAIN = fileURLToPath(new URL('../cli/main.js', import.meta.url));

/** Ours: how much of each child's stdout/stderr is kept (the tail), so a long --keep-running stays bounded. */
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
  /** Called with each complete stderr line as it arrives. */
  onStderrLine(listener: (line: string) => void): void;
  /** Called after every chunk of output until the returned function is called. */
  onOutput(listener: () => void): () => void;
}

/**
 * Every process the demo starts. Each is a `notegate` child in a process group of its own (detached),
 * so a terminal's Ctrl-C reaches only the demo, which then stops them in order; stopping signals the
 * whole group, so nothing a child might start survives it.
 */
export class ChildProcesses {
  readonly #running = new Map<ChildProcess, RunningChild>();

  /** Starts `notegate <args>` with its stdout/stderr collected. */
  start(name: string, args: readonly string[]): RunningChild {
    const child = spawn(process.execPath, [NOTEGATE_MAIN, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const pid = child.pid;
    if (pid === undefined) throw new Error(`cannot start ${name}: no process id`);
    const output: ChildOutput = { stdout: '', stderr: '' };
    const lineListeners: ((line: string) => void)[] = [];
    const outputListeners = new Set<() => void>();
    let partial = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      output.stdout = keepTail(output.stdout + chunk);
      for (const listener of outputListeners) listener();
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      output.stderr = keepTail(output.stderr + chunk);
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) for (const listener of lineListeners) listener(line);
      for (const listener of outputListeners) listener();
    });
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
      onStderrLine: (listener) => lineListeners.push(listener),
      onOutput: (listener) => {
        outputListeners.add(listener);
        return () => outputListeners.delete(listener);
      },
    };
    this.#running.set(child, running);
    return running;
  }

  /** Process ids still running (for the exit-time safety net and for tests). */
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
