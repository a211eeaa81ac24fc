import type { Stats } from 'node:fs';
import { lstat, rm } from 'node:fs/promises';
import path from 'node:path';
import { describeThrown, writeFileAtomic } from '@notegate/kit';
import { stringify } from 'yaml';
import { NoteFolder } from './note-folder.js';
import { numberedName, titleFileName } from './note-path.js';
import { NotePlaceError, refuseAnythingButAFile, resolveNoteTarget } from './note-target.js';

/** Ours: `Title 2.md` … `Title 1000.md`, then a new note of that title is refused. */
const MAX_NAME_NUMBER = 1_000;

export interface NoteInput {
  readonly title: string;
  readonly body: string;
  /** Relative to the vault, already checked by notePathProblem; absent: a new note named after the title. */
  readonly path?: string | undefined;
}

export interface WrittenNote {
  /** Relative to the vault, `/`-separated. */
  readonly path: string;
  readonly created: boolean;
  readonly bytes: number;
}

/** The file of a note: a YAML front matter block with the title (the indexer's title, docs/retrieval.md#chunking), then the body. */
function noteFileContent(title: string, body: string): string {
  return `---\n${stringify({ title }).trimEnd()}\n---\n\n${body}`;
}

/**
 * Writes notes into one vault (docs/protocol.md#tools): durably (temporary
 * file, fsync, rename, fsync of the folder) before it resolves, so an
 * acknowledged note survives a crash; writes of one path run one after the
 * other, and each replaces the file whole, so two writes never interleave.
 * The note's folder is opened first and everything happens in it (NoteFolder,
 * docs/security.md#vault-folders-and-notes): a folder swapped for a link meanwhile
 * cannot move the note or its temporary file out of the vault.
 */
export class NoteWriter {
  readonly #vaultRealPath: string;
  readonly #queues = new Map<string, Promise<unknown>>();

  constructor(vaultRealPath: string) {
    this.#vaultRealPath = vaultRealPath;
  }

  /** Why no note can be placed at `path` now (for the audit line), or undefined when one can. */
  placeProblem(path: string): string | undefined {
    try {
      resolveNoteTarget(this.#vaultRealPath, path);
      return undefined;
    } catch (err) {
      // A folder the server may not read, or one removed meanwhile, is no place for a note either.
      return err instanceof NotePlaceError ? err.detail : describeThrown(err);
    }
  }

  write(input: NoteInput): Promise<WrittenNote> {
    const content = noteFileContent(input.title, input.body);
    if (input.path !== undefined) {
      const notePath = input.path;
      return this.#serialised(notePath, () =>
        this.#inFolder(notePath, (folder, entry) => this.#writeInto(folder, notePath, content, entry)),
      );
    }
    const name = titleFileName(input.title);
    if (name === undefined) throw new NotePlaceError('the title has no letter or digit');
    // New notes of one title pick their numbered names one after the other.
    return this.#serialised(`new:${name}`, async () => {
      for (let n = 1; n <= MAX_NAME_NUMBER; n++) {
        const candidate = numberedName(name, n);
        if (resolveNoteTarget(this.#vaultRealPath, candidate).exists) continue;
        // Another writer may have taken the name meanwhile: then the next number is tried.
        const written = await this.#serialised(candidate, () =>
          this.#inFolder(candidate, (folder, entry) =>
            entry ? Promise.resolve(undefined) : this.#writeInto(folder, candidate, content, entry),
          ),
        );
        if (written) return written;
      }
      throw new NotePlaceError(`${MAX_NAME_NUMBER} notes named ${name} exist already`);
    });
  }

  /** Runs `task` with the note's folder open (made when missing) and what is at the note's path now. */
  async #inFolder<T>(notePath: string, task: (folder: NoteFolder, entry: Stats | undefined) => Promise<T>): Promise<T> {
    const folder = await NoteFolder.openFor(this.#vaultRealPath, notePath);
    try {
      const entry = await lstat(path.join(folder.path, path.basename(notePath))).catch(() => undefined);
      refuseAnythingButAFile(entry, notePath);
      return await task(folder, entry);
    } finally {
      await folder.close();
    }
  }

  async #writeInto(
    folder: NoteFolder,
    notePath: string,
    content: string,
    entry: Stats | undefined,
  ): Promise<WrittenNote> {
    const name = path.basename(notePath);
    await writeFileAtomic(folder.path, name, content);
    try {
      await folder.checkInside(this.#vaultRealPath, notePath);
    } catch (err) {
      // The folder was moved out of the vault while the note was written: the note goes again.
      await rm(path.join(folder.path, name), { force: true });
      throw err;
    }
    return { path: notePath, created: entry === undefined, bytes: Buffer.byteLength(content, 'utf8') };
  }

  #serialised<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#queues.get(key) ?? Promise.resolve();
    const run = previous.then(task);
    const settled = run.catch(() => undefined);
    this.#queues.set(key, settled);
    void settled.then(() => {
      if (this.#queues.get(key) === settled) this.#queues.delete(key);
    });
    return run;
  }
}
