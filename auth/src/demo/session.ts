import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChildProcesses } from '../shared/child-processes.js';

/**
 * What one demo run owns and must leave nothing of: a private temporary folder (0700: policy,
 * workloads, sockets, notes, audit logs), on SPIRE a second folder for what the workloads use, and
 * every child process. `close` stops the children (SIGTERM, then SIGKILL after a grace) and removes
 * the folders; should the demo die without closing, an exit hook still kills the process groups
 * and removes the folders.
 */
export class DemoSession {
  readonly children = new ChildProcesses();
  readonly #closers: (() => Promise<void>)[] = [];
  readonly #folders: string[];
  #closed: Promise<void> | undefined;

  private constructor(readonly dir: string) {
    this.#folders = [dir];
    process.on('exit', this.#lastResort);
  }

  /** The temporary folders made so far, the private one first. */
  get folders(): readonly string[] {
    return this.#folders;
  }

  static async open(): Promise<DemoSession> {
    return new DemoSession(await mkdtemp(join(tmpdir(), 'notegate-demo-')));
  }

  /**
   * A second temporary folder (0700 until its user opens it up), removed with the first: SPIRE's
   * sockets and the files workloads of other users write, kept apart from the private folder.
   */
  async workloadFolder(): Promise<string> {
    const folder = await mkdtemp(join(tmpdir(), 'notegate-spire-'));
    this.#folders.push(folder);
    return folder;
  }

  /** Something else to close (before the folders are removed), such as an in-process listener. */
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
    await Promise.all(this.#folders.map((folder) => rm(folder, { recursive: true, force: true })));
    process.off('exit', this.#lastResort);
  }

  readonly #lastResort = (): void => {
    this.children.killAllNow();
    for (const folder of this.#folders) rmSync(folder, { recursive: true, force: true });
  };
}
