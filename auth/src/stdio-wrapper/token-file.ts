import { constants, rmSync, statSync } from 'node:fs';
import { mkdtemp, open, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { UsageError } from '@notegate/kit/cli';
import { randomHex } from '../shared/random-hex.js';

/** The file name inside the private directory the wrapper creates when no path is given. */
export const DEFAULT_TOKEN_FILE_NAME = 'access-token';
const PRIVATE_DIR_PREFIX = 'mcp-svid-stdio-';
/** Owner read/write only, from the moment the file exists. */
const TOKEN_FILE_MODE = 0o600;

/**
 * The token file handed to the child. Every version is written to a new temporary file in the same
 * directory, created with O_CREAT|O_EXCL and mode 0600 (never readable by others, not even for an
 * instant), synced, then renamed over the file: a reader sees the old token or the new one, never a
 * partial or empty file. The content is the bare token, without a newline.
 */
export class TokenFile {
  readonly path: string;
  /** The private directory this process created (and removes), when no path was given. */
  readonly #ownDir: string | undefined;
  /** The write in progress: `remove()` waits for it, so a late rename cannot bring the file back. */
  #writing: Promise<void> = Promise.resolve();
  #removed = false;

  private constructor(path: string, ownDir: string | undefined) {
    this.path = path;
    this.#ownDir = ownDir;
  }

  /** `path` as given (its directory must exist), or `access-token` in a new private directory (0700). */
  static async create(path: string | undefined): Promise<TokenFile> {
    if (path === undefined) {
      const dir = await mkdtemp(join(tmpdir(), PRIVATE_DIR_PREFIX));
      return new TokenFile(join(dir, DEFAULT_TOKEN_FILE_NAME), dir);
    }
    const absolute = resolve(path);
    if (!isDirectory(dirname(absolute)))
      throw new UsageError(`--token-file: directory ${dirname(absolute)} does not exist`);
    if (isDirectory(absolute)) throw new UsageError(`--token-file: ${absolute} is a directory`);
    return new TokenFile(absolute, undefined);
  }

  /** Writes are queued one after the other; after `remove()` they fail. */
  write(token: string): Promise<void> {
    const next = this.#writing.then(() => this.#replace(token));
    this.#writing = next.catch(() => undefined);
    return next;
  }

  async #replace(token: string): Promise<void> {
    if (this.#removed) throw new Error(`${this.path} was removed; not writing a token any more`);
    const temporary = join(dirname(this.path), `.${basename(this.path)}.${randomHex(8)}.tmp`);
    const handle = await open(temporary, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, TOKEN_FILE_MODE);
    try {
      // The umask may only have removed bits; make it exactly owner read/write.
      await handle.chmod(TOKEN_FILE_MODE);
      await handle.writeFile(token, 'utf8');
      await handle.sync();
      await handle.close();
      await rename(temporary, this.path);
    } catch (err) {
      await handle.close().catch(() => undefined);
      await rm(temporary, { force: true });
      throw err;
    }
  }

  /** Deletes the file (and the private directory with anything left in it); safe to call twice. */
  async remove(): Promise<void> {
    this.#removed = true;
    await this.#writing;
    await rm(this.path, { force: true });
    if (this.#ownDir !== undefined) await rm(this.#ownDir, { recursive: true, force: true });
  }

  /** The same, for a process `exit` handler, where nothing asynchronous runs any more. */
  removeSync(): void {
    this.#removed = true;
    rmSync(this.path, { force: true });
    if (this.#ownDir !== undefined) rmSync(this.#ownDir, { recursive: true, force: true });
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
