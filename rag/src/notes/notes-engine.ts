import type { DenseScan } from '../config/environment.js';
import type { RagConfig, ResolvedVault } from '../config/load-config.js';
import { hasVectors, type ModelSpec } from '../config/models.js';
import type { Embedder } from '../embed/embedder.js';
import { LiveIndex } from '../live-index/live-index.js';
import type { SearchResult } from '../search/hybrid-search.js';
import type { SearchContext, SearchRequest } from '../search/search-request.js';
import { describeWordIndex } from '../words/word-index.js';
import { type LineRange, NoteReadError, type NoteText, readNote } from './note-reader.js';
import { type NoteInput, NoteWriter, type WrittenNote } from './note-writer.js';

/**
 * Ours: how long notes.write waits for its note to be indexed before it answers anyway (the note is
 * durable by then; the index run goes on and the answer says `indexed: false`).
 */
const WRITE_INDEX_WAIT_MS = 1_500;

export interface NotesEngineOptions {
  readonly config: RagConfig;
  /** The vaults this server serves: searches see only these, and only these are followed. */
  readonly vaultIds: readonly string[];
  /** Where notes.write writes, one of vaultIds; absent: the engine writes nothing (a read-only server). */
  readonly writeVaultId?: string | undefined;
  readonly modelCacheDir: string;
  readonly modelHubUrl: URL;
  /** Whether large segments are searched approximately (default auto; docs/retrieval.md#dense-leg). */
  readonly denseScan?: DenseScan;
  /** True when the engine makes its index if there is none (a notes folder without a config, `notegate-rag mcp`). */
  readonly createIndex: boolean;
  /**
   * Whether `open` waits for the first index run before it resolves (default: `createIndex`): a server that
   * must find notes written before a crash does; a stdio server answers at once and searches what is
   * committed so far (an index run commits file by file).
   */
  readonly catchUpFirst?: boolean;
  readonly log: (line: string) => void;
  /** The model loader (tests inject the generated test model's). */
  readonly loadEmbedder?: (model: ModelSpec, cacheDir: string) => Promise<Embedder>;
}

/**
 * The notes engine (docs/protocol.md#notes-engine): the retrieval index of
 * some vaults of a config, searched in-process exactly as `notegate-rag serve`
 * searches it and kept up to date the same way (the `LiveIndex` of `serve
 * --watch`: a watcher on the vault folders, one model per process for query
 * and passage vectors), plus reading a note of them, and writing into one of
 * them (where there is a write vault), each write followed by an index run.
 */
export class NotesEngine {
  readonly #options: NotesEngineOptions;
  readonly #live: LiveIndex;
  readonly #writer: NoteWriter | undefined;

  private constructor(options: NotesEngineOptions) {
    this.#options = options;
    this.#live = new LiveIndex({
      config: options.config,
      vaultIds: options.vaultIds,
      modelCacheDir: options.modelCacheDir,
      modelHubUrl: options.modelHubUrl,
      denseScan: options.denseScan,
      follow: true,
      createIndex: options.createIndex,
      log: options.log,
      ...(options.loadEmbedder && { loadEmbedder: options.loadEmbedder }),
      onReload: (event) => {
        if ('error' in event) options.log(`index unavailable: ${event.error}`);
      },
      // Every write makes a new generation: only a word index that could not be built is worth a line.
      onWordIndex: (state) => {
        if (state.kind === 'unavailable') options.log(describeWordIndex(state));
      },
    });
    this.#writer =
      options.writeVaultId === undefined ? undefined : new NoteWriter(this.#vault(options.writeVaultId).realPath);
  }

  #vault(id: string): ResolvedVault {
    const vault = this.#options.config.vaults.find((candidate) => candidate.id === id);
    if (!vault) throw new Error(`vault ${id} is not a vault of the config`);
    return vault;
  }

  /**
   * Opens the index and starts following the vaults. A server that makes its
   * own index first brings it up to date (notes written before a crash are
   * searchable once it listens); otherwise that run goes on in the background.
   */
  static async open(options: NotesEngineOptions): Promise<NotesEngine> {
    const engine = new NotesEngine(options);
    const caughtUp = engine.#live.follow();
    if (options.catchUpFirst ?? options.createIndex) await caughtUp;
    await engine.#live.index.start();
    return engine;
  }

  /** What a search request here is checked against (docs/retrieval.md#post-search): these vaults, and vectors or not. */
  get searchContext(): SearchContext {
    return { vaults: this.#options.vaultIds, vectors: hasVectors(this.#options.config.model) };
  }

  /** The vaults searches see, and notes.read reads from. */
  get vaultIds(): readonly string[] {
    return this.#options.vaultIds;
  }

  /** Where notes.write writes; undefined for an engine that writes nothing. */
  get writeVaultId(): string | undefined {
    return this.#options.writeVaultId;
  }

  /** Why notes.write could not put a note at `path` of the write vault now, or undefined. */
  placeProblem(path: string): string | undefined {
    return this.#writer ? this.#writer.placeProblem(path) : 'this engine writes no notes';
  }

  /**
   * A note of one of this engine's vaults, by its path as search hits give it (docs/protocol.md#tools):
   * throws NoteReadError naming what is wrong (a vault not served here, a path outside the vault, no such
   * note, a range outside it, not text).
   */
  read(vaultId: string, path: string, range: LineRange): NoteText {
    if (!this.#options.vaultIds.includes(vaultId)) {
      throw new NoteReadError('vault', `vault ${vaultId} is not served here (${this.#options.vaultIds.join(', ')})`);
    }
    return readNote(this.#vault(vaultId).realPath, path, range);
  }

  /**
   * Why the index cannot be searched now (missing, another model, damaged), or undefined when it can:
   * the state the snapshot source last saw (it checks the file on every search and once a second).
   */
  unavailable(): string | undefined {
    const state = this.#live.index.snapshots.current;
    if (state.kind === 'ready') return undefined;
    return state.kind === 'loading' ? 'the index is still loading' : state.reason;
  }

  /**
   * The search of `notegate-rag serve` (docs/retrieval.md#how-a-search-runs) of a request checked
   * against `searchContext`, over this engine's vaults only.
   */
  async search(request: SearchRequest): Promise<Pick<SearchResult, 'hits' | 'corrections'>> {
    return this.#live.index.search({ ...request, vaults: request.vaults ?? this.#options.vaultIds });
  }

  /** Writes durably, then waits up to WRITE_INDEX_WAIT_MS for an index run that includes the note. */
  async write(input: NoteInput): Promise<WrittenNote & { readonly indexed: boolean }> {
    const vaultId = this.#options.writeVaultId;
    if (!this.#writer || vaultId === undefined) throw new Error('this engine writes no notes');
    const written = await this.#writer.write(input);
    let timer: NodeJS.Timeout | undefined;
    const indexed = await Promise.race([
      // The note alone, not the whole vault: a write costs what it changes (docs/retrieval.md#following-the-vaults).
      this.#live.indexNow(new Map([[vaultId, [written.path]]])),
      new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), WRITE_INDEX_WAIT_MS);
      }),
    ]);
    clearTimeout(timer);
    return { ...written, indexed };
  }

  close(): Promise<void> {
    return this.#live.close();
  }
}
