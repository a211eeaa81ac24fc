import { LoopSlices } from '@notegate/kit';
import { chunkerSettingsFor } from '../chunk/settings.js';
import type { RagConfig } from '../config/load-config.js';
import { hasVectors, type ModelSpec } from '../config/models.js';
import { type DownloadOptions, ensureModelFiles } from '../embed/download.js';
import type { Embedder } from '../embed/embedder.js';
import { loadTransformersEmbedder } from '../embed/transformers-embedder.js';
import { acquireIndexLock } from '../store/index-lock.js';
import { IndexStore } from '../store/index-store.js';
import { WalCheckpointer } from '../store/wal-checkpointer.js';
import { listNotes } from '../walk/list-notes.js';
import { walkVault } from '../walk/walk-vault.js';
import { canonicalJson, fingerprintInputsOf, fingerprintOf } from './fingerprint.js';
import { lexicalOnlyEmbedder } from './lexical-only-embedder.js';
import { modelFileHashes } from './model-identity.js';
import { planVault } from './plan.js';
import { RunState } from './run-state.js';
import type { IndexProgress, IndexSummary } from './types.js';

/**
 * Measured (bench/rag/index-throughput.ts --probes-only, e5-small-sized q8 model,
 * one ORT thread, 384 chunks sampled from the eval vault): batch 1 embedded
 * 24.4 chunks/s at 336 MB peak RSS, batch 8 17.1 chunks/s at 775 MB, batch 32
 * 11.0 chunks/s at 2.2 GB. Larger batches only cost memory on this stack.
 */
export const DEFAULT_BATCH_SIZE = 1;
/**
 * Chunks gathered across files before embedding: with batching they sort by
 * length (less padding); a crash loses at most this much finished work.
 */
export const DEFAULT_WINDOW_CHUNKS = 64;

export interface RunIndexOptions {
  readonly config: RagConfig;
  readonly modelCacheDir: string;
  readonly download: DownloadOptions;
  /** Index only these vault ids (default: every vault of the config, and drop vaults no longer in it). */
  readonly vaultIds?: readonly string[];
  /**
   * Index only these notes (paths relative to their vault, by vault id) of the
   * selected vaults, without walking the vaults, when each path can be
   * settled alone (`listNotes`; a vault where one cannot is walked whole).
   */
  readonly notes?: ReadonlyMap<string, readonly string[]>;
  readonly rebuild?: boolean;
  readonly onProgress?: (event: IndexProgress) => void;
  readonly loadEmbedder?: (model: ModelSpec, cacheDir: string) => Promise<Embedder>;
  /** Milliseconds since the epoch (injected in tests). */
  readonly clock?: () => number;
  readonly batchSize?: number;
  readonly windowChunks?: number;
  /** How long a slice of the run may hold the event loop (default SLICE_MS; tests: 0, a turn after every step). */
  readonly sliceMs?: number;
  /** Internal: force the fallback layout, the word table alone (tests). */
  readonly lexicalLayout?: 'auto' | 'words';
}

/**
 * One `index` run: lock, check or rebuild the index, make sure the model is
 * there, then bring every selected vault up to date file by file.
 */
export async function runIndex(options: RunIndexOptions): Promise<IndexSummary> {
  const lock = acquireIndexLock(options.config.indexPath);
  try {
    return await indexUnderLock(options);
  } finally {
    lock.release();
  }
}

async function indexUnderLock(options: RunIndexOptions): Promise<IndexSummary> {
  const { config, modelCacheDir } = options;
  const clock = options.clock ?? Date.now;
  const startedAtMs = clock();
  const emit = options.onProgress ?? (() => {});
  // docs/retrieval.md#index-runs: the log is checkpointed off the event loop, never inside a commit.
  const walCheckpoints = new WalCheckpointer(config.indexPath);
  const storeOptions = {
    model: config.model,
    lexicalLayout: options.lexicalLayout ?? 'auto',
    nowMs: startedAtMs,
    walCheckpoints,
  };
  // The model guard runs before any download; a rebuild only destroys once the model is in place.
  let store = options.rebuild ? undefined : IndexStore.open(config.indexPath, storeOptions);
  let finished = false;
  try {
    await ensureModelFiles(config.model, modelCacheDir, {
      ...options.download,
      onFile: (file, url) => emit({ kind: 'model-download', file: file.path, url: url.href }),
      onBytes: (file, bytesDone, bytesTotal) =>
        emit({ kind: 'model-download-progress', file: file.path, bytesDone, bytesTotal }),
    });
    store ??= IndexStore.open(config.indexPath, { ...storeOptions, rebuild: true });
    const settings = chunkerSettingsFor(config.model);
    const opened = store;
    const hashes = hasVectors(config.model)
      ? await modelFileHashes(config.model, modelCacheDir, {
          get: (key) => opened.metaValue(key),
          set: (key, value) => opened.writeMeta({ [key]: value }),
        })
      : {};
    const inputs = fingerprintInputsOf(config.model, hashes, settings);
    const fingerprint = fingerprintOf(inputs);
    // An index without vectors never loads a model, whatever loader the caller shares.
    const load = hasVectors(config.model)
      ? (options.loadEmbedder ?? loadTransformersEmbedder)
      : async (model: ModelSpec) => lexicalOnlyEmbedder(model);
    const run = new RunState({
      store,
      fingerprint,
      settings,
      clock,
      emit,
      loadEmbedder: () => {
        if (hasVectors(config.model)) emit({ kind: 'model-loading', modelId: config.model.id });
        return load(config.model, modelCacheDir);
      },
      batchSize: options.batchSize ?? DEFAULT_BATCH_SIZE,
      windowChunks: options.windowChunks ?? DEFAULT_WINDOW_CHUNKS,
      slices: new LoopSlices(options.sliceMs),
    });
    try {
      await indexVaults(options, store, run, fingerprint);
    } finally {
      await run.dispose();
    }
    store.finishRun(fingerprint, canonicalJson(inputs), clock());
    const summary = run.summary({
      indexPath: config.indexPath,
      modelId: config.model.id,
      lexicalLayout: store.meta.lexicalLayout,
      rebuilt: options.rebuild ?? false,
      durationMs: clock() - startedAtMs,
    });
    finished = true;
    return summary;
  } finally {
    try {
      // A checkpoint that failed left its pages in the log, where readers still find them: it is the
      // run's error only when the run itself succeeded, never in place of the error that stopped it.
      await walCheckpoints.close().catch((err: unknown) => {
        if (finished) throw err;
      });
    } finally {
      store?.close();
    }
  }
}

async function indexVaults(
  options: RunIndexOptions,
  store: IndexStore,
  run: RunState,
  fingerprint: string,
): Promise<void> {
  const { config, notes } = options;
  const selected = options.vaultIds ?? config.vaults.map((vault) => vault.id);
  const vaults = config.vaults.filter((vault) => selected.includes(vault.id) && (notes?.has(vault.id) ?? true));
  if (options.vaultIds === undefined && notes === undefined) {
    const configured = new Set(selected);
    for (const gone of store.vaultsInIndex().filter((id) => !configured.has(id))) {
      await run.removeRows(store.fileIdsOfVault(gone));
    }
  }
  const plans = vaults.map((vault) => {
    const paths = notes?.get(vault.id);
    const some = paths === undefined ? undefined : listNotes(vault, config.diode, paths);
    const listing = some ?? walkVault(vault, config.diode);
    // Known only from a walk of the whole vault.
    const links = some === undefined ? listing.links : undefined;
    run.emit({ kind: 'scanned', vault: vault.id, files: listing.files.length, ...(links !== undefined && { links }) });
    // Only the notes listed are compared with the index: the others were not looked at.
    const rows = store.fileRows(vault.id, some === undefined ? undefined : paths);
    return planVault(listing.files, listing.skipped, rows, fingerprint);
  });
  for (const plan of plans) await run.applyPlan(plan);
  await run.processCandidates(plans.flatMap((plan) => plan.candidates));
  run.vaults.push(...vaults.map((vault) => vault.id));
}
