import { DEFAULT_MODEL_HUB_URL } from '../config/environment.js';
import { hasVectors, type ModelSpec } from '../config/models.js';
import { ensureModelFiles, noDownloads } from '../embed/download.js';
import type { Embedder } from '../embed/embedder.js';
import { ResidentModel, type ResidentModelState } from '../embed/resident-model.js';
import { loadTransformersEmbedder } from '../embed/transformers-embedder.js';
import { RagError } from '../errors/rag-error.js';
import { SnapshotSource, type SnapshotSourceOptions } from '../snapshot/snapshot-source.js';
import {
  needsQueryVector,
  noVectorsError,
  type SearchOptions,
  type SearchResult,
  searchSnapshot,
} from './hybrid-search.js';
import { TurnQueue } from './turn-queue.js';

export interface SearchIndexOptions {
  readonly indexPath: string;
  /** The config's model: the index must have been built with it. */
  readonly model: ModelSpec;
  readonly modelCacheDir: string;
  /** Named in the message that lists missing model files (default: the public hub). */
  readonly modelHubUrl?: URL;
  /** Loads the query embedder; default: the model's files from the cache, never downloading. */
  readonly loadEmbedder?: (model: ModelSpec, cacheDir: string) => Promise<Embedder>;
  readonly onReload?: SnapshotSourceOptions['onReload'];
  readonly onWordIndex?: SnapshotSourceOptions['onWordIndex'];
  readonly onMerge?: SnapshotSourceOptions['onMerge'];
  readonly clock?: () => number;
  /** Pause between reloads of a busy index (tests: none). */
  readonly reloadSpacing?: SnapshotSourceOptions['reloadSpacing'];
  /**
   * When the query model loads: from `start()` on (a server, so that the first
   * search does not wait), or at the first search that embeds its query (one
   * lexical search from the shell loads none). Default: at start.
   */
  readonly loadModel?: 'at-start' | 'when-needed';
  /**
   * Keeps the word tier's postings in memory (default true): a server's
   * lexical leg then ranks from memory; a one-shot search does not need them
   * (docs/retrieval.md#snapshots).
   */
  readonly memoryWords?: boolean;
  /** Whether large segments are searched approximately (default auto; docs/retrieval.md#dense-leg). */
  readonly denseScan?: SnapshotSourceOptions['denseScan'];
}

/**
 * An index opened for search, in-process (the library API and the search
 * server share it): it follows the file while `notegate-rag index` updates it
 * (docs/retrieval.md#snapshots) and keeps the query model resident. An index
 * without vectors loads no model at all.
 */
export class SearchIndex {
  readonly model: ModelSpec;
  readonly snapshots: SnapshotSource;
  private readonly embedder: ResidentModel | undefined;
  private readonly loadModelAtStart: boolean;
  /** One ranking step per event-loop turn (docs/retrieval.md#query-limits). */
  private readonly turns = new TurnQueue();
  /** The first load of the snapshot source, once `start()` began it. */
  #firstLoad: Promise<void> | undefined;

  constructor(options: SearchIndexOptions) {
    const { model, modelCacheDir } = options;
    this.model = model;
    this.snapshots = new SnapshotSource({
      indexPath: options.indexPath,
      model,
      clock: options.clock,
      onReload: options.onReload,
      onWordIndex: options.onWordIndex,
      onMerge: options.onMerge,
      reloadSpacing: options.reloadSpacing,
      memoryWords: options.memoryWords,
      denseScan: options.denseScan,
    });
    const hubUrl = options.modelHubUrl ?? new URL(DEFAULT_MODEL_HUB_URL);
    const load =
      options.loadEmbedder ?? ((spec, dir) => loadFromCache(spec, { modelCacheDir: dir, modelHubUrl: hubUrl }));
    this.embedder = hasVectors(model) ? new ResidentModel(() => load(model, modelCacheDir)) : undefined;
    this.loadModelAtStart = (options.loadModel ?? 'at-start') === 'at-start';
  }

  /** Starts loading the model in the background (unless `loadModel` says when needed); resolves once the first snapshot has loaded or failed. */
  async start(): Promise<void> {
    if (this.loadModelAtStart) this.embedder?.start();
    this.#firstLoad ??= this.snapshots.start();
    await this.#firstLoad;
  }

  /** The query model's state; an index without vectors needs none and is always ready. */
  get modelState(): ResidentModelState {
    return this.embedder?.state ?? { state: 'ready' };
  }

  /** Resolves once the model has loaded or failed. */
  async modelSettled(): Promise<void> {
    await this.embedder?.settled();
  }

  /**
   * One search: the query is embedded first when the dense leg runs, then the
   * current snapshot is searched without yielding. Throws RagError
   * ERR_MODEL_UNAVAILABLE, ERR_INDEX_MISSING, ERR_INDEX_UNAVAILABLE or
   * ERR_NO_VECTORS; a failure is never an empty result.
   */
  async search(options: SearchOptions): Promise<SearchResult> {
    // A search that arrives while a server's first snapshot loads waits for it (docs/retrieval.md#snapshots).
    if (this.snapshots.current.kind === 'loading') await this.#firstLoad;
    this.snapshots.check();
    // No index yet is said first: embedding the query (or failing to load a model) would not change it.
    const before = this.snapshots.current;
    if (before.kind === 'missing') throw new RagError('ERR_INDEX_MISSING', before.reason);
    let queryVector: Float32Array | undefined;
    if (needsQueryVector(options.mode)) {
      if (!this.embedder) throw noVectorsError(options);
      this.embedder.start();
      queryVector = await this.embedder.embedQuery(options.query);
    }
    // Inside the job nothing awaits: the snapshot cannot be swapped under this search.
    return this.turns.run(() => {
      const state = this.snapshots.current;
      if (state.kind !== 'ready') {
        throw new RagError(
          state.kind === 'missing' ? 'ERR_INDEX_MISSING' : 'ERR_INDEX_UNAVAILABLE',
          state.kind === 'loading' ? 'the index is still loading' : state.reason,
        );
      }
      return searchSnapshot(state.snapshot, queryVector, options);
    });
  }

  async close(): Promise<void> {
    await this.snapshots.close();
    await this.embedder?.dispose();
  }
}

/** Opens the index for search and waits for its first snapshot. */
export async function openIndex(options: SearchIndexOptions): Promise<SearchIndex> {
  const index = new SearchIndex(options);
  await index.start();
  return index;
}

/** `index` downloads and verifies the model; a search only says what is missing. */
export async function loadFromCache(
  model: ModelSpec,
  { modelCacheDir: cacheDir, modelHubUrl }: { readonly modelCacheDir: string; readonly modelHubUrl: URL },
): Promise<Embedder> {
  await ensureModelFiles(model, cacheDir, noDownloads(modelHubUrl));
  return loadTransformersEmbedder(model, cacheDir);
}
