import { mkdir, readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../shared/atomic-write.js';
import { type Clock, systemClock } from '../../shared/clock.js';
import { Bm25Index } from './bm25-index.js';
import { formatNoteFile, type Note, parseNoteFile } from './note-file.js';
import { newNoteId, noteFileName, noteIdOfFile } from './note-id.js';
import { buildSnippet, firstOffsets } from './snippet.js';
import { documentTerms, queryTerms } from './tokenize.js';

/** Notes written by another process become searchable within this long (the next search after it rescans). */
export const RESCAN_INTERVAL_MS = 1_000;
/** Files larger than this in the directory are not notes we wrote (bodies are at most 256 KiB) and are skipped. */
const MAX_NOTE_FILE_BYTES = 2 * 1024 * 1024;

export interface NoteHit {
  readonly id: string;
  readonly title: string;
  readonly snippet: string;
  readonly score: number;
  readonly updatedAt: string;
}

export interface NoteWrite {
  readonly id: string;
  readonly created: boolean;
  readonly updatedAt: string;
}

/** A client asked to replace a note that does not exist. */
export class UnknownNoteError extends Error {
  constructor(readonly id: string) {
    super(`no note with id ${id}`);
    this.name = 'UnknownNoteError';
  }
}

interface FileState {
  readonly mtimeMs: number;
  readonly size: number;
}

/**
 * Markdown notes in one directory (one file per note, ids chosen here) with an
 * in-memory BM25F index. The index is loaded at start and updated on every
 * write; files changed by other processes are picked up by a rescan (readdir +
 * stat, rereading only files whose mtime or size changed) that the first
 * search after RESCAN_INTERVAL_MS runs. Writes to one id are serialised in
 * this process so file order and index order agree; a per-id version keeps a
 * concurrent rescan from putting back older content.
 */
export class NotesStore {
  readonly #dir: string;
  readonly #clock: Clock;
  readonly #rescanIntervalMs: number;
  readonly #notes = new Map<string, Note>();
  readonly #offsets = new Map<string, ReadonlyMap<string, number>>();
  readonly #files = new Map<string, FileState>();
  readonly #versions = new Map<string, number>();
  readonly #locks = new Map<string, Promise<unknown>>();
  readonly #index = new Bm25Index();
  #lastScanMs = Number.NEGATIVE_INFINITY;
  #scanning: Promise<void> | undefined;

  private constructor(dir: string, clock: Clock, rescanIntervalMs: number) {
    this.#dir = dir;
    this.#clock = clock;
    this.#rescanIntervalMs = rescanIntervalMs;
  }

  static async open(dir: string, options: { clock?: Clock; rescanIntervalMs?: number } = {}): Promise<NotesStore> {
    await mkdir(dir, { recursive: true });
    const store = new NotesStore(dir, options.clock ?? systemClock, options.rescanIntervalMs ?? RESCAN_INTERVAL_MS);
    await store.rescan();
    return store;
  }

  get size(): number {
    return this.#notes.size;
  }

  /** Best notes for `query` (BM25F over title and body), at most `limit`, each with a snippet around the match. */
  async search(query: string, limit: number): Promise<NoteHit[]> {
    if (this.#clock() - this.#lastScanMs >= this.#rescanIntervalMs) await this.rescan();
    const terms = queryTerms(query);
    if (terms.length === 0) return [];
    return this.#index
      .search(terms)
      .slice(0, limit)
      .flatMap(({ id, score }) => {
        const note = this.#notes.get(id);
        if (!note) return [];
        const snippet = buildSnippet(note.body, this.#offsets.get(id) ?? new Map(), terms);
        return [{ id, title: note.title, snippet, score: Math.round(score * 1e4) / 1e4, updatedAt: note.updatedAt }];
      });
  }

  /** Creates a note (no id) or replaces an existing one; atomic on disk. */
  write(input: { title: string; body: string; id?: string | undefined }): Promise<NoteWrite> {
    const id = input.id ?? newNoteId();
    return this.#serialised(id, async () => {
      const path = join(this.#dir, noteFileName(id));
      if (input.id !== undefined && !this.#notes.has(id) && (await stat(path).catch(() => undefined)) === undefined) {
        throw new UnknownNoteError(id);
      }
      const updatedAt = new Date(this.#clock()).toISOString();
      await writeFileAtomic(
        this.#dir,
        noteFileName(id),
        formatNoteFile({ title: input.title, body: input.body, updatedAt }),
      );
      const written = await stat(path);
      this.#apply({ id, title: input.title, body: input.body, updatedAt }, written);
      return { id, created: input.id === undefined, updatedAt };
    });
  }

  /** Reconciles the index with the directory; concurrent callers share one scan. */
  rescan(): Promise<void> {
    this.#scanning ??= this.#scan().finally(() => {
      this.#scanning = undefined;
    });
    return this.#scanning;
  }

  async #scan(): Promise<void> {
    this.#lastScanMs = this.#clock();
    const versionsAtStart = new Map(this.#versions);
    const present = new Set<string>();
    for (const name of await readdir(this.#dir)) {
      const id = noteIdOfFile(name);
      if (id === undefined) continue;
      present.add(id);
      await this.#reloadIfChanged(id, join(this.#dir, name));
    }
    for (const id of [...this.#notes.keys()]) {
      if (!present.has(id) && this.#versions.get(id) === versionsAtStart.get(id)) this.#forget(id);
    }
  }

  async #reloadIfChanged(id: string, path: string): Promise<void> {
    const file = await stat(path).catch(() => undefined);
    if (!file?.isFile() || file.size > MAX_NOTE_FILE_BYTES) return;
    const known = this.#files.get(id);
    if (known && known.mtimeMs === file.mtimeMs && known.size === file.size) return;
    const version = this.#versions.get(id);
    const content = await readFile(path, 'utf8').catch(() => undefined);
    // A write of this id finished meanwhile: its content is newer than what was read.
    if (content === undefined || this.#versions.get(id) !== version) return;
    this.#apply(parseNoteFile(id, content, file.mtimeMs), file);
  }

  #apply(note: Note, file: FileState): void {
    this.#notes.set(note.id, note);
    this.#files.set(note.id, { mtimeMs: file.mtimeMs, size: file.size });
    this.#versions.set(note.id, (this.#versions.get(note.id) ?? 0) + 1);
    const bodyTokens = documentTerms(note.body);
    this.#offsets.set(note.id, firstOffsets(bodyTokens));
    this.#index.upsert(
      note.id,
      documentTerms(note.title).map((token) => token.term),
      bodyTokens.map((token) => token.term),
    );
  }

  #forget(id: string): void {
    this.#notes.delete(id);
    this.#offsets.delete(id);
    this.#files.delete(id);
    this.#index.remove(id);
    this.#versions.set(id, (this.#versions.get(id) ?? 0) + 1);
  }

  #serialised<T>(id: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#locks.get(id) ?? Promise.resolve();
    const run = previous.then(task);
    const settled = run.catch(() => undefined);
    this.#locks.set(id, settled);
    void settled.then(() => {
      if (this.#locks.get(id) === settled) this.#locks.delete(id);
    });
    return run;
  }
}
