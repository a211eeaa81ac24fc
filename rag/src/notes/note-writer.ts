import { describeThrown, writeFileAtomic } from '@notegate/kit';
import { stringify } from 'yaml';
import { numberedName, titleFileName } from './note-path.js';
import { NotePlaceError, type NoteTarget, resolveNoteTarget } from './note-target.js';

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
      resolveNoteTarget(this.#vaultRealPath, path, false);
      return undefined;
    } catch (err) {
      // A folder the server may not read, or one removed meanwhile, is no place for a note either.
      return err instanceof NotePlaceError ? err.detail : describeThrown(err);
    }
  }

  write(input: NoteInput): Promise<WrittenNote> {
    const content = noteFileContent(input.title, input.body);
    if (input.path !== undefined) {
      const path = input.path;
      return this.#serialised(path, () => this.#writeAt(path, content));
    }
    const name = titleFileName(input.title);
    if (name === undefined) throw new NotePlaceError('the title has no letter or digit');
    // New notes of one title pick their numbered names one after the other.
    return this.#serialised(`new:${name}`, async () => {
      for (let n = 1; n <= MAX_NAME_NUMBER; n++) {
        const candidate = numberedName(name, n);
        if (resolveNoteTarget(this.#vaultRealPath, candidate, false).exists) continue;
        const written = await this.#serialised(candidate, () => this.#writeNew(candidate, content));
        if (written) return written;
      }
      throw new NotePlaceError(`${MAX_NAME_NUMBER} notes named ${name} exist already`);
    });
  }

  async #writeAt(path: string, content: string): Promise<WrittenNote> {
    return this.#put(path, resolveNoteTarget(this.#vaultRealPath, path, true), content);
  }

  /** A new note at `path`; undefined when another writer took the name meanwhile (the next number is tried). */
  async #writeNew(path: string, content: string): Promise<WrittenNote | undefined> {
    const target = resolveNoteTarget(this.#vaultRealPath, path, true);
    return target.exists ? undefined : this.#put(path, target, content);
  }

  async #put(path: string, target: NoteTarget, content: string): Promise<WrittenNote> {
    await writeFileAtomic(target.dir, target.name, content);
    return { path, created: !target.exists, bytes: Buffer.byteLength(content, 'utf8') };
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
