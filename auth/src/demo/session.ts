import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChildProcesses } from './child-processes.js';

/**
 * What one demo run owns and must leave nothing of: a private temporary folder (0700: policy,
 * workloads, sockets, notes, audit logs) and every child process. `close` stops the children
 * (SIGTERM, then SIGKILL after a grace) and removes the folder; should the demo die without
 * closing, an exit hook still kills the process groups and removes the folder.
 */
export class DemoSession {
  readonly children = new ChildProcesses();
  readonly #closers: (() => Promise<void>)[] = [];
  #closed: Promise<void> | undefined;

  private constructor(readonly dir: string) {
    process.on('exit', this.#lastResort);
  }

  static async open(): Promise<DemoSession> {
    return new DemoSession(await mkdtemp(join(tmpdir(), 'notegate-demo-')));
  }

  /** Something else to close (before the folder is removed), such as an in-process listener. */
  onClose(close: () => Promise<void>): void {
    this.#closers.push(close);
  }

  close(): Promise<void> {
    this.#closed ??= this.#close();
    return this.#closed;
  }

  async #close(): Promise<void> {
    await this.children.stopAll();
    await Promise.all(this.#closers.map((close) => close().catch(() => undefined)));
    await rm(this.dir, { recursive: true, force: true });
    process.off('exit', this.#lastResort);
  }

  readonly #lastResort = (): void => {
    this.children.killAllNow();
    rmSync(this.dir, { recursive: true, force: true });
  };
}
