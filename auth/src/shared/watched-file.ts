import type { FSWatcher } from 'node:fs';
import { watch } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { errorMessage } from '@notegate/kit';
import { describeReadFailure, type FileCheck, readCheckedFile } from './checked-read.js';

export interface WatchedFileOptions {
  readonly path: string;
  /** Stat poll: catches changes fs.watch misses (network file systems, a replaced directory). */
  readonly pollIntervalMs?: number;
  /** Checks the file as opened before it is read (its owner and mode); a problem refuses that version. */
  readonly check?: FileCheck;
  /**
   * Takes the bytes of each new version of the file, the first one included. A throw rejects that
   * version: its message becomes the file's problem, and the version is not read again until the
   * file changes.
   */
  readonly onContent: (bytes: Buffer) => void | Promise<void>;
  /** The file could not be read, or its content was rejected; told once per distinct problem. */
  readonly onProblem: (problem: string) => void;
  /** Trouble with the watch itself (the stat poll still runs). */
  readonly onWatchError?: (message: string) => void;
}

const DEFAULT_POLL_INTERVAL_MS = 1_000;
/**
 * A watch event is followed by a read only after this quiet time: a file written in place is
 * truncated first and filled after, and reading between the two would see it empty.
 */
const SETTLE_MS = 100;

/**
 * A file re-read whenever it changes: the directory is watched, not the file, so a replacement by
 * atomic rename is seen, and a cheap stat poll backs fs.watch up. Reads are serialized; a change
 * seen during a read queues exactly one more read.
 */
export class WatchedFile {
  readonly path: string;
  readonly #options: WatchedFileOptions;
  #watcher: FSWatcher | undefined;
  #poller: NodeJS.Timeout | undefined;
  #settling: NodeJS.Timeout | undefined;
  #lastVersion: string | null = null;
  #lastProblem: string | null = null;
  #reading: Promise<void> | null = null;
  #pendingForce: boolean | null = null;
  /** Set by reload(): its read reports a problem even when it is the one last reported. */
  #reportRepeat = false;
  #closed = false;

  constructor(options: WatchedFileOptions) {
    this.path = options.path;
    this.#options = options;
  }

  /** Reads the file once, then watches it. */
  start(): this {
    this.reread(true);
    try {
      this.#watcher = watch(dirname(this.path), (_event, name) => {
        if (name === null || name === basename(this.path)) this.#rereadWhenSettled();
      });
      this.#watcher.on('error', (err) => this.#options.onWatchError?.(`watching ${this.path} failed: ${err.message}`));
    } catch (err) {
      this.#options.onWatchError?.(`cannot watch ${this.path}, polling only: ${errorMessage(err)}`);
    }
    this.#poller = setInterval(() => this.reread(false), this.#options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS);
    this.#poller.unref();
    return this;
  }

  /** Waits for the reads under way; then the problem of the last version read, or null when it was taken. */
  async settled(): Promise<string | null> {
    while (this.#reading) await this.#reading;
    return this.#lastProblem;
  }

  /**
   * Reads the file again: `force` reads it even if its inode, size and times did not change (a watch
   * event, a signal); otherwise only a changed file is read.
   */
  reread(force: boolean): void {
    if (this.#closed) return;
    if (this.#reading) {
      this.#pendingForce = (this.#pendingForce ?? false) || force;
      return;
    }
    this.#reading = this.#readOnce(force).finally(() => {
      this.#reading = null;
      const again = this.#pendingForce;
      this.#pendingForce = null;
      if (again !== null) this.reread(again);
    });
  }

  /**
   * Reads the file again now, changed or not, on an operator's request (a signal): its outcome is
   * reported even when the file still has the problem already reported, so every request is answered.
   */
  reload(): void {
    this.#reportRepeat = true;
    this.reread(true);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#watcher?.close();
    clearInterval(this.#poller);
    clearTimeout(this.#settling);
    await this.#reading;
  }

  /** Each event restarts the quiet time; one read follows the last event of a burst. */
  #rereadWhenSettled(): void {
    clearTimeout(this.#settling);
    this.#settling = setTimeout(() => this.reread(true), SETTLE_MS);
    this.#settling.unref();
  }

  async #readOnce(force: boolean): Promise<void> {
    let bytes: Buffer;
    try {
      const info = await stat(this.path);
      const version = `${info.ino}:${info.size}:${info.mtimeMs}:${info.ctimeMs}`;
      if (!force && version === this.#lastVersion) return;
      // Set before the content is judged: a rejected file is not re-read on every poll, only when it changes.
      this.#lastVersion = version;
      const { check } = this.#options;
      bytes = await (check ? readCheckedFile(this.path, check) : readFile(this.path));
    } catch (err) {
      this.#problem(describeReadFailure(err));
      return;
    }
    if (this.#closed) return;
    try {
      await this.#options.onContent(bytes);
      this.#lastProblem = null;
      this.#reportRepeat = false;
    } catch (err) {
      this.#problem(errorMessage(err));
    }
  }

  #problem(problem: string): void {
    if (this.#closed) return;
    if (problem !== this.#lastProblem || this.#reportRepeat) this.#options.onProblem(problem);
    this.#lastProblem = problem;
    this.#reportRepeat = false;
  }
}
