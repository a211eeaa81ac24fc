import type { FSWatcher } from 'node:fs';
import { watch } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { errorMessage } from '@notegate/kit';
import { StateBackedBundleSource } from './bundle-state.js';
import { importJwtBundleBytes } from './import-bundle.js';

export interface FileBundleSourceOptions {
  readonly path: string;
  /** The file holds one trust domain's bundle; the caller says which (the policy's trust domain). */
  readonly trustDomain: string;
  /** Stat poll: catches changes fs.watch misses (network file systems, a replaced directory). */
  readonly pollIntervalMs?: number;
  /** Skipped keys and read errors, for the operator's log. */
  readonly onEvent?: (message: string) => void;
}

export const DEFAULT_BUNDLE_POLL_INTERVAL_MS = 1_000;

/**
 * A static JWT bundle file (`--jwt-bundle FILE`), SPIFFE bundle or plain JWKS, re-read when it changes.
 * The directory is watched, not the file, so a replacement by atomic rename is seen; a cheap stat poll
 * backs fs.watch up. An unreadable or invalid file makes every lookup `unavailable` until it is fixed.
 */
export class FileBundleSource extends StateBackedBundleSource {
  private readonly options: FileBundleSourceOptions;
  private readonly onEvent: (message: string) => void;
  private watcher: FSWatcher | undefined;
  private poller: NodeJS.Timeout | undefined;
  private lastVersion: string | null = null;
  /** Why the last read could not be used ("cannot read: …", or what is wrong with the content). */
  private lastProblem: string | null = null;
  private reloading: Promise<void> | null = null;
  private pendingForce: boolean | null = null;
  private closed = false;

  constructor(options: FileBundleSourceOptions) {
    super('JWT bundle file not read yet');
    this.options = options;
    this.onEvent = options.onEvent ?? (() => {});
  }

  /** Reads the file once, then watches it. */
  start(): this {
    this.reload(true);
    try {
      this.watcher = watch(dirname(this.options.path), (_event, name) => {
        if (name === null || name === basename(this.options.path)) this.reload(true);
      });
      this.watcher.on('error', (err) => this.onEvent(`watching ${this.options.path} failed: ${err.message}`));
    } catch (err) {
      this.onEvent(`cannot watch ${this.options.path}, polling only: ${errorMessage(err)}`);
    }
    this.poller = setInterval(() => this.reload(false), this.options.pollIntervalMs ?? DEFAULT_BUNDLE_POLL_INTERVAL_MS);
    this.poller.unref();
    return this;
  }

  /** Waits for the reads under way (the first one after start); then the file's problem, or null when its keys are in use. */
  async settled(): Promise<string | null> {
    while (this.reloading) await this.reloading;
    return this.lastProblem;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.watcher?.close();
    clearInterval(this.poller);
    await this.reloading;
    this.state.close();
  }

  /** Serialized: a change seen while reading queues exactly one more read. */
  private reload(force: boolean): void {
    if (this.closed) return;
    if (this.reloading) {
      this.pendingForce = (this.pendingForce ?? false) || force;
      return;
    }
    this.reloading = this.readOnce(force).finally(() => {
      this.reloading = null;
      const again = this.pendingForce;
      this.pendingForce = null;
      if (again !== null) this.reload(again);
    });
  }

  /** A watch event forces a read; a poll reads only when inode, size or times changed. */
  private async readOnce(force: boolean): Promise<void> {
    const { path, trustDomain } = this.options;
    let bytes: Buffer;
    try {
      const info = await stat(path);
      const version = `${info.ino}:${info.size}:${info.mtimeMs}:${info.ctimeMs}`;
      if (!force && version === this.lastVersion) return;
      // Set before parsing: an invalid file is not re-parsed on every poll, only when it changes.
      this.lastVersion = version;
      bytes = await readFile(path);
    } catch (err) {
      this.fail(`cannot read: ${errorMessage(err)}`);
      return;
    }
    try {
      const imported = await importJwtBundleBytes(bytes);
      for (const note of imported.ignored) this.onEvent(`${path}: ignoring ${note}`);
      if (this.closed) return;
      this.state.replace(new Map([[trustDomain, { kind: 'keys', keys: imported.keys }]]));
      this.lastProblem = null;
    } catch (err) {
      this.fail(errorMessage(err));
    }
  }

  private fail(problem: string): void {
    if (this.closed) return;
    const reason = `JWT bundle file ${this.options.path}: ${problem}`;
    this.state.markUnavailable(reason);
    if (problem !== this.lastProblem) this.onEvent(reason);
    this.lastProblem = problem;
  }
}
