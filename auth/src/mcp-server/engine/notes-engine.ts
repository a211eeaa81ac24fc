import { errorMessage } from '@notegate/kit';
import {
  describeWordIndex,
  type Embedder,
  hasVectors,
  IndexFollower,
  loadFromCache,
  type ModelSpec,
  type RagConfig,
  type SearchHit,
  SearchIndex,
  type SearchMode,
  SharedEmbedder,
  type VaultWatcher,
  watchVaults,
} from '@notegate/rag';
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
  /** Where notes.write writes; one of vaultIds. */
  readonly writeVaultId: string;
  readonly modelCacheDir: string;
  readonly modelHubUrl: URL;
  /** True for a notes folder without a config: the server makes its index (lexical only). */
  readonly createIndex: boolean;
  readonly log: (line: string) => void;
  /** The model loader (tests inject the generated test model's). */
  readonly loadEmbedder?: (model: ModelSpec, cacheDir: string) => Promise<Embedder>;
}

export interface EngineSearch {
  readonly query: string;
  readonly top: number;
  readonly mode: SearchMode;
  readonly namespaces: readonly string[] | undefined;
}

/**
 * The notes server's one engine (docs/protocol.md#notes-engine): the retrieval
 * index of its vaults, searched in-process through @notegate/rag exactly as
 * `notegate-rag serve` searches it, kept up to date by a watcher on the vault
 * folders and by an index run after each write, with one model per process
 * for query and passage vectors.
 */
export class NotesEngine {
  readonly #options: NotesEngineOptions;
  readonly #index: SearchIndex;
  readonly #shared: SharedEmbedder | undefined;
  readonly #follower: IndexFollower;
  readonly #writer: NoteWriter;
  #watcher: VaultWatcher | undefined;

  private constructor(options: NotesEngineOptions) {
    this.#options = options;
    const { config, modelCacheDir, modelHubUrl } = options;
    const load = options.loadEmbedder ?? ((model: ModelSpec) => loadFromCache(model, { modelCacheDir, modelHubUrl }));
    this.#shared = hasVectors(config.model) ? new SharedEmbedder(() => load(config.model, modelCacheDir)) : undefined;
    const shared = this.#shared;
    const loadEmbedder = shared && (() => shared.acquire());
    this.#index = new SearchIndex({
      indexPath: config.indexPath,
      model: config.model,
      modelCacheDir,
      modelHubUrl,
      ...(loadEmbedder && { loadEmbedder }),
      onReload: (event) => {
        if ('error' in event) options.log(`index unavailable: ${event.error}`);
      },
      // Every write makes a new generation: only a word index that could not be built is worth a line.
      onWordIndex: (state) => {
        if (state.kind === 'unavailable') options.log(describeWordIndex(state));
      },
    });
    this.#follower = new IndexFollower({
      config,
      vaultIds: options.vaultIds,
      modelCacheDir,
      modelHubUrl,
      ...(loadEmbedder && { loadEmbedder }),
      onIndexed: () => this.#index.snapshots.refresh(),
      log: options.log,
      createIndex: options.createIndex,
    });
    const writeVault = config.vaults.find((vault) => vault.id === options.writeVaultId);
    if (!writeVault) throw new Error(`write vault ${options.writeVaultId} is not a vault of the config`);
    this.#writer = new NoteWriter(writeVault.realPath);
  }

  /**
   * Opens the index and starts following the vaults. A server that makes its
   * own index first brings it up to date (notes written before a crash are
   * searchable once it listens); otherwise that run goes on in the background.
   */
  static async open(options: NotesEngineOptions): Promise<NotesEngine> {
    const engine = new NotesEngine(options);
    const { config, vaultIds } = options;
    try {
      engine.#watcher = watchVaults(
        config.vaults.filter((vault) => vaultIds.includes(vault.id)),
        () => engine.#follower.changed(),
        (vault, err) => options.log(`watching vault ${vault} failed: ${err.message}`),
      );
    } catch (err) {
      // Writes through notes.write still index at once; edits by other programs wait for the next one.
      options.log(`not following the vault folders (${errorMessage(err)})`);
    }
    const caughtUp = engine.#follower.indexNow();
    if (options.createIndex) await caughtUp;
    await engine.#index.start();
    return engine;
  }

  /** Whether the index has vectors (hybrid and dense searches). */
  get vectors(): boolean {
    return hasVectors(this.#options.config.model);
  }

  get writeVaultId(): string {
    return this.#options.writeVaultId;
  }

  /** Why notes.write could not put a note at `path` of the write vault now, or undefined. */
  placeProblem(path: string): string | undefined {
    return this.#writer.placeProblem(path);
  }

  /**
   * Why the index cannot be searched now (missing, another model, damaged), or undefined when it can:
   * the state the snapshot source last saw (it checks the file on every search and once a second).
   */
  unavailable(): string | undefined {
    const state = this.#index.snapshots.current;
    if (state.kind === 'ready') return undefined;
    return state.kind === 'loading' ? 'the index is still loading' : state.reason;
  }

  /** The search of `notegate-rag serve` (docs/retrieval.md#how-a-search-runs), over this server's vaults only. */
  async search(request: EngineSearch): Promise<readonly SearchHit[]> {
    const result = await this.#index.search({
      query: request.query,
      top: request.top,
      mode: request.mode,
      vaults: this.#options.vaultIds,
      namespaces: request.namespaces,
      mmr: false,
      mmrLambda: 0,
    });
    return result.hits;
  }

  /** Writes durably, then waits up to WRITE_INDEX_WAIT_MS for an index run that includes the note. */
  async write(input: NoteInput): Promise<WrittenNote & { readonly indexed: boolean }> {
    const written = await this.#writer.write(input);
    let timer: NodeJS.Timeout | undefined;
    const indexed = await Promise.race([
      this.#follower.indexNow(),
      new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), WRITE_INDEX_WAIT_MS);
      }),
    ]);
    clearTimeout(timer);
    return { ...written, indexed };
  }

  async close(): Promise<void> {
    this.#watcher?.close();
    await this.#follower.close();
    await this.#index.close();
    await this.#shared?.dispose();
  }
}
