import { rmSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { writeFileAtomic } from '@notegate/kit';
import { UsageError } from '@notegate/kit/cli';

/** The file name inside the private directory the wrapper creates when no path is given. */
export const DEFAULT_TOKEN_FILE_NAME = 'access-token';
const PRIVATE_DIR_PREFIX = 'mcp-svid-stdio-';

/**
 * The token file handed to the child. Every version replaces the file atomically with a 0600 file
 * (writeFileAtomic): never readable by others, not even for an instant, and a reader sees the old
 * token or the new one, never a partial or empty file. The content is the bare token, without a newline.
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
    await writeFileAtomic(dirname(this.path), basename(this.path), token);
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
