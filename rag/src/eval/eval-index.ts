import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RagConfig } from '../config/load-config.js';
import type { ModelSpec } from '../config/models.js';
import type { DownloadOptions } from '../embed/download.js';
import type { Embedder } from '../embed/embedder.js';
import { RagError } from '../errors/rag-error.js';
import { runIndex } from '../indexer/run-index.js';
import type { IndexProgress } from '../indexer/types.js';
import { openIndex, type SearchIndex } from '../search/search-index.js';
import type { WordScoring } from '../words/word-ranking.js';
import type { BeirDocument } from './beir-dataset.js';
import { writeCorpusVault } from './corpus-vault.js';

export interface EvalIndexOptions {
  readonly documents: readonly BeirDocument[];
  /** The model to index and search with (`none`: lexical only). */
  readonly model: ModelSpec;
  readonly modelCacheDir: string;
  readonly download: DownloadOptions;
  /**
   * Where the throw-away index is built; kept afterwards, and a second build
   * there re-embeds nothing (the index run is incremental). Default: a new
   * folder in the system's temp dir, removed by `close()`.
   */
  readonly workDir?: string;
  readonly loadEmbedder?: (model: ModelSpec, cacheDir: string) => Promise<Embedder>;
  readonly onProgress?: (event: IndexProgress) => void;
  readonly clock?: () => number;
  /** Internal (benchmarks): the full-text layout to build (`words`: the fallback without the trigram table). */
  readonly lexicalLayout?: 'auto' | 'words';
  /**
   * Internal (benchmarks): index the corpus this many times, one vault each,
   * to check that the ranking holds as the index grows (a document ranks at
   * its best chunk in any copy).
   */
  readonly copies?: number;
}

/** A dataset's corpus indexed for `eval`, open for search; `close()` releases it. */
export interface EvalIndex {
  readonly index: SearchIndex;
  /** Note path (in any vault) → the document id it holds. */
  readonly documentOf: ReadonlyMap<string, string>;
  readonly documents: number;
  readonly chunks: number;
  readonly indexMs: number;
  /** Where the lexical leg's word tier is ranked (docs/retrieval.md#lexical-leg): the same hits either way. */
  readonly lexicalScoring: WordScoring;
  close(): Promise<void>;
}

/**
 * Writes each document as a note and indexes them with the model exactly as
 * `index` does, chunking included (docs/retrieval.md#eval), then opens the
 * index for search with its word index ready, as a server's would be.
 */
export async function buildEvalIndex(options: EvalIndexOptions): Promise<EvalIndex> {
  const clock = options.clock ?? (() => performance.now());
  if (options.workDir) mkdirSync(options.workDir, { recursive: true });
  const work = realpathSync(options.workDir ?? mkdtempSync(path.join(tmpdir(), 'notegate-eval-')));
  const removeWork = () => {
    if (!options.workDir) rmSync(work, { recursive: true, force: true });
  };
  try {
    const vaultDirs = Array.from({ length: options.copies ?? 1 }, (_, i) => path.join(work, `corpus-${i}`));
    let documentOf = new Map<string, string>();
    for (const dir of vaultDirs) {
      mkdirSync(dir, { recursive: true });
      documentOf = writeCorpusVault(dir, options.documents);
    }
    const config = throwAwayConfig(work, vaultDirs, options.model);
    const startedAtMs = clock();
    const summary = await runIndex({
      config,
      modelCacheDir: options.modelCacheDir,
      download: options.download,
      loadEmbedder: options.loadEmbedder,
      onProgress: options.onProgress,
      lexicalLayout: options.lexicalLayout,
    });
    const indexMs = clock() - startedAtMs;
    if (summary.failed.length > 0) {
      throw new RagError(
        'ERR_DATASET',
        `${summary.failed.length} documents failed to index: ${summary.failed[0]?.error}`,
      );
    }
    const index = await openIndex({
      indexPath: config.indexPath,
      model: options.model,
      modelCacheDir: options.modelCacheDir,
      loadEmbedder: options.loadEmbedder,
    });
    // The first snapshot holds the word index (docs/retrieval.md#snapshots): query times are a server's.
    const served = index.snapshots.current;
    return {
      index,
      documentOf,
      documents: options.documents.length,
      chunks: served.kind === 'ready' ? served.snapshot.chunks : summary.chunksEmbedded,
      indexMs,
      lexicalScoring: served.kind === 'ready' ? served.snapshot.lexical.scoring : 'sqlite',
      close: async () => {
        try {
          await index.close();
        } finally {
          removeWork();
        }
      },
    };
  } catch (err) {
    removeWork();
    throw err;
  }
}

/** A config of the corpus vaults, indexed into `work`. */
function throwAwayConfig(work: string, vaultDirs: readonly string[], model: ModelSpec): RagConfig {
  return {
    configPath: path.join(work, 'vaults.json'),
    repoRoot: work,
    model,
    indexPath: path.join(work, 'index.sqlite'),
    vaults: vaultDirs.map((dir, i) => ({ id: `corpus-${i}`, path: dir, realPath: dir })),
    diode: { allowedRoots: [work], homeDirs: [] },
  };
}
