import { errorMessage } from '@notegate/kit';
import type { RagConfig } from '../config/load-config.js';
import type { ModelSpec } from '../config/models.js';
import type { Embedder } from '../embed/embedder.js';
import { IndexFollower } from '../indexer/index-follower.js';
import type { IndexSummary } from '../indexer/types.js';
import { type VaultWatcher, watchVaults } from '../walk/vault-watcher.js';

export interface VaultFollowingOptions {
  readonly config: RagConfig;
  /** The vaults that are followed; default every vault of the config, as `index` does. */
  readonly vaultIds?: readonly string[];
  readonly modelCacheDir: string;
  /** Named in the message that lists missing model files. */
  readonly modelHubUrl: URL;
  /** The passage model; default the model's files from the cache (never downloaded here). */
  readonly loadEmbedder?: (model: ModelSpec, cacheDir: string) => Promise<Embedder>;
  /** False: no index run while the index file does not exist (it is `notegate-rag index`'s to make). */
  readonly createIndex: boolean;
  /** Operator lines (index runs, watch failures). */
  readonly log: (line: string) => void;
  /** After each run, before anyone waiting for it hears of it. */
  readonly onIndexed: (summary: IndexSummary) => Promise<void> | void;
}

/**
 * An index kept up to date with its vault folders (docs/retrieval.md#following-the-vaults): a watcher on
 * the folders drives an `IndexFollower`'s incremental runs. What `serve --watch`, the notes engine and
 * `notegate-rag index --watch` follow the vaults with.
 */
export class VaultFollowing {
  readonly #options: VaultFollowingOptions;
  readonly #follower: IndexFollower;
  #watcher: VaultWatcher | undefined;

  constructor(options: VaultFollowingOptions) {
    this.#options = options;
    const { config, vaultIds, modelCacheDir, modelHubUrl, loadEmbedder, log, createIndex, onIndexed } = options;
    this.#follower = new IndexFollower({
      config,
      ...(vaultIds && { vaultIds }),
      modelCacheDir,
      modelHubUrl,
      ...(loadEmbedder && { loadEmbedder }),
      onIndexed,
      log,
      createIndex,
    });
  }

  /**
   * Starts watching the followed vault folders and runs the start-up index run; resolves with that run
   * (true once it committed). A folder that cannot be watched is logged: changes then wait for the next
   * `indexNow()`.
   */
  start(): Promise<boolean> {
    const { config, vaultIds, log } = this.#options;
    const vaults = config.vaults.filter((vault) => vaultIds === undefined || vaultIds.includes(vault.id));
    try {
      this.#watcher = watchVaults(
        vaults,
        (vault, path) => this.#follower.changed(vault, path),
        (vault, err) => log(`watching vault ${vault} failed: ${err.message}`),
      );
      log(`following ${vaults.length} vault folder${vaults.length === 1 ? '' : 's'}`);
    } catch (err) {
      log(`not following the vault folders (${errorMessage(err)})`);
    }
    return this.#follower.indexNow();
  }

  /** An index run that starts after this call (over `notes` alone, paths by vault id, when given); true once it has committed. */
  indexNow(notes?: ReadonlyMap<string, readonly string[]>): Promise<boolean> {
    return this.#follower.indexNow(notes);
  }

  /** Stops watching; a run in progress finishes first. */
  async close(): Promise<void> {
    this.#watcher?.close();
    await this.#follower.close();
  }
}
