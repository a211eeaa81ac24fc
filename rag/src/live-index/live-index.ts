import { errorMessage } from '@notegate/kit';
import type { RagConfig } from '../config/load-config.js';
import { hasVectors, type ModelSpec } from '../config/models.js';
import type { Embedder } from '../embed/embedder.js';
import { SharedEmbedder } from '../embed/shared-embedder.js';
import { IndexFollower } from '../indexer/index-follower.js';
import { loadFromCache, SearchIndex, type SearchIndexOptions } from '../search/search-index.js';
import { type VaultWatcher, watchVaults } from '../walk/vault-watcher.js';

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
  /** The model loader; default the model's files from the cache, never downloading (tests inject theirs). */
  readonly loadEmbedder?: (model: ModelSpec, cacheDir: string) => Promise<Embedder>;
}

/**
 * An index opened for search in a long-running process and, when asked, kept
 * up to date with its vaults (docs/retrieval.md#following-the-vaults): the
 * `SearchIndex` that follows the file, and with `follow` a watcher on the vault
 * folders driving an `IndexFollower`, whose runs embed with the model the
 * searches use (one copy per process, docs/retrieval.md#serving). What
 * `notegate-rag serve` and the notes engine serve.
 */
export class LiveIndex {
  readonly index: SearchIndex;
  readonly #options: LiveIndexOptions;
  readonly #shared: SharedEmbedder | undefined;
  readonly #follower: IndexFollower | undefined;
  #watcher: VaultWatcher | undefined;

  constructor(options: LiveIndexOptions) {
    this.#options = options;
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
    });
    this.#follower = options.follow
      ? new IndexFollower({
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
    const follower = this.#follower;
    if (!follower) return Promise.resolve(false);
    const { config, vaultIds, log } = this.#options;
    const vaults = config.vaults.filter((vault) => vaultIds === undefined || vaultIds.includes(vault.id));
    try {
      this.#watcher = watchVaults(
        vaults,
        (vault, path) => follower.changed(vault, path),
        (vault, err) => log(`watching vault ${vault} failed: ${err.message}`),
      );
      log(`following ${vaults.length} vault folder${vaults.length === 1 ? '' : 's'}`);
    } catch (err) {
      log(`not following the vault folders (${errorMessage(err)})`);
    }
    return follower.indexNow();
  }

  /**
   * An index run that starts after this call (over `notes` alone, paths by
   * vault id, when given); true once it has committed and is searchable
   * (false without `follow`).
   */
  indexNow(notes?: ReadonlyMap<string, readonly string[]>): Promise<boolean> {
    return this.#follower?.indexNow(notes) ?? Promise.resolve(false);
  }

  /** Stops following (a run in progress finishes first), then closes the index and the model. */
  async close(): Promise<void> {
    this.#watcher?.close();
    await this.#follower?.close();
    await this.index.close();
    await this.#shared?.dispose();
  }
}
