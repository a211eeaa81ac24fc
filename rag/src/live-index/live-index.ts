import type { RagConfig } from '../config/load-config.js';
import { hasVectors, type ModelSpec } from '../config/models.js';
import type { Embedder } from '../embed/embedder.js';
import { SharedEmbedder } from '../embed/shared-embedder.js';
import { loadFromCache, SearchIndex, type SearchIndexOptions } from '../search/search-index.js';
import { VaultFollowing } from './vault-following.js';

export interface LiveIndexOptions {
  readonly config: RagConfig;
  /** The vaults that are followed; default every vault of the config, as `index` does. */
  readonly vaultIds?: readonly string[];
  readonly modelCacheDir: string;
  /** Named in the message that lists missing model files. */
  readonly modelHubUrl: URL;
  /** Keep the index up to date with the vault folders: a watcher, and an index run after each change. */
  readonly follow: boolean;
  /** False: no index run while the index file does not exist (it is `notegate-rag index`'s to make). */
  readonly createIndex: boolean;
  /** Operator lines (index runs, watch failures). */
  readonly log: (line: string) => void;
  readonly onReload?: SearchIndexOptions['onReload'];
  readonly onWordIndex?: SearchIndexOptions['onWordIndex'];
  readonly denseScan?: SearchIndexOptions['denseScan'];
  /** The model loader; default the model's files from the cache, never downloading (tests inject theirs). */
  readonly loadEmbedder?: (model: ModelSpec, cacheDir: string) => Promise<Embedder>;
}

/**
 * An index opened for search in a long-running process and, when asked, kept
 * up to date with its vaults (docs/retrieval.md#following-the-vaults): the
 * `SearchIndex` that follows the file, and with `follow` a `VaultFollowing`
 * (a watcher on the vault folders driving index runs), whose runs embed with
 * the model the searches use (one copy per process, docs/retrieval.md#serving).
 * What `notegate-rag serve` and the notes engine serve.
 */
export class LiveIndex {
  readonly index: SearchIndex;
  readonly #shared: SharedEmbedder | undefined;
  readonly #following: VaultFollowing | undefined;

  constructor(options: LiveIndexOptions) {
    const { config, modelCacheDir, modelHubUrl } = options;
    const load = options.loadEmbedder ?? ((model: ModelSpec) => loadFromCache(model, { modelCacheDir, modelHubUrl }));
    const shared =
      options.follow && hasVectors(config.model)
        ? new SharedEmbedder(() => load(config.model, modelCacheDir))
        : undefined;
    this.#shared = shared;
    const loadEmbedder = shared ? () => shared.acquire() : options.loadEmbedder;
    this.index = new SearchIndex({
      indexPath: config.indexPath,
      model: config.model,
      modelCacheDir,
      modelHubUrl,
      ...(loadEmbedder && { loadEmbedder }),
      onReload: options.onReload,
      onWordIndex: options.onWordIndex,
      denseScan: options.denseScan,
    });
    this.#following = options.follow
      ? new VaultFollowing({
          config,
          ...(options.vaultIds && { vaultIds: options.vaultIds }),
          modelCacheDir,
          modelHubUrl,
          ...(loadEmbedder && { loadEmbedder }),
          onIndexed: () => this.index.snapshots.refresh(),
          log: options.log,
          createIndex: options.createIndex,
        })
      : undefined;
  }

  /**
   * Starts watching the followed vault folders and runs the start-up index run;
   * resolves with that run (true once it committed and is searchable). A folder
   * that cannot be watched is logged: changes then wait for the next
   * `indexNow()`. Without `follow`, nothing is followed and this resolves false.
   */
  follow(): Promise<boolean> {
    return this.#following?.start() ?? Promise.resolve(false);
  }

  /**
   * An index run that starts after this call (over `notes` alone, paths by
   * vault id, when given); true once it has committed and is searchable
   * (false without `follow`).
   */
  indexNow(notes?: ReadonlyMap<string, readonly string[]>): Promise<boolean> {
    return this.#following?.indexNow(notes) ?? Promise.resolve(false);
  }

  /** Stops following (a run in progress finishes first), then closes the index and the model. */
  async close(): Promise<void> {
    await this.#following?.close();
    await this.index.close();
    await this.#shared?.dispose();
  }
}
