import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RagConfig } from '../config/load-config.js';
import { hasVectors, type ModelSpec } from '../config/models.js';
import type { DownloadOptions } from '../embed/download.js';
import type { Embedder } from '../embed/embedder.js';
import { RagError } from '../errors/rag-error.js';
import { runIndex } from '../indexer/run-index.js';
import type { IndexProgress } from '../indexer/types.js';
import { LEG_DEPTH, type SearchMode } from '../search/hybrid-search.js';
import { openIndex } from '../search/search-index.js';
import type { WordScoring } from '../words/word-ranking.js';
import { loadBeirDataset, type Split } from './beir-dataset.js';
import { writeCorpusVault } from './corpus-vault.js';
import { meanScores, type QueryScores, scoreQuery } from './metrics.js';
import { checkWeights, type WeightsCheck } from './model-check.js';

/** What `eval` measures: the three legs' combinations, and hybrid re-ordered by MMR. */
export type EvalMode = SearchMode | 'hybrid+mmr';
export const EVAL_MODES: readonly EvalMode[] = ['lexical', 'dense', 'hybrid', 'hybrid+mmr'];
/** MMR's λ in `hybrid+mmr`: the search API's default (docs/retrieval.md#post-search). */
const EVAL_MMR_LAMBDA = 0.7;

export interface EvalOptions {
  /** A BEIR-format dataset folder. */
  readonly datasetDir: string;
  readonly split: Split;
  readonly modes: readonly EvalMode[];
  /** The model to index and search with (`none`: lexical only). */
  readonly model: ModelSpec;
  readonly modelCacheDir: string;
  readonly download: DownloadOptions;
  /** Where the throw-away index is built (removed afterwards); default: a new folder in the system's temp dir. */
  readonly workDir?: string;
  readonly loadEmbedder?: (model: ModelSpec, cacheDir: string) => Promise<Embedder>;
  readonly onProgress?: (event: EvalProgress) => void;
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

export type EvalProgress =
  | { readonly kind: 'loaded'; readonly documents: number; readonly queries: number }
  | { readonly kind: 'index'; readonly event: IndexProgress }
  | { readonly kind: 'queries'; readonly mode: EvalMode; readonly done: number; readonly total: number };

export interface ModeReport extends QueryScores {
  readonly mode: EvalMode;
  /** Per query, query embedding included. */
  readonly queryMsP50: number;
  readonly queryMsP95: number;
}

export interface EvalReport {
  readonly datasetDir: string;
  readonly split: Split;
  readonly modelId: string;
  /** The weights file and whether it is the official release's; undefined without a model. */
  readonly weights: WeightsCheck | undefined;
  readonly documents: number;
  readonly chunks: number;
  readonly queries: number;
  readonly indexMs: number;
  /** Where the lexical leg's word tier was ranked (docs/retrieval.md#lexical-leg): the same hits either way. */
  readonly lexicalScoring: WordScoring;
  readonly modes: readonly ModeReport[];
}

/**
 * `notegate-rag eval` (docs/retrieval.md#eval): indexes the dataset's corpus
 * into a throw-away index with the model, exactly as `index` does, then runs
 * every judged query through the search the server runs, `LEG_DEPTH` hits
 * deep, and scores the rankings (metrics.ts).
 */
export async function runEval(options: EvalOptions): Promise<EvalReport> {
  const clock = options.clock ?? (() => performance.now());
  const emit = options.onProgress ?? (() => {});
  const needVectors = options.modes.filter((mode) => mode !== 'lexical');
  if (!hasVectors(options.model) && needVectors.length > 0) {
    throw new RagError('ERR_NO_VECTORS', `${needVectors.join(', ')}: embed_model none has no vectors; use lexical`);
  }
  const dataset = await loadBeirDataset(options.datasetDir, options.split);
  emit({ kind: 'loaded', documents: dataset.documents.length, queries: dataset.judgments.size });
  const work = realpathSync(options.workDir ?? mkdtempSync(path.join(tmpdir(), 'notegate-eval-')));
  try {
    const vaultDirs = Array.from({ length: options.copies ?? 1 }, (_, i) => path.join(work, `corpus-${i}`));
    let documentOf = new Map<string, string>();
    for (const dir of vaultDirs) {
      mkdirSync(dir, { recursive: true });
      documentOf = writeCorpusVault(dir, dataset.documents);
    }
    const config = throwAwayConfig(work, vaultDirs, options.model);
    const startedAtMs = clock();
    const summary = await runIndex({
      config,
      modelCacheDir: options.modelCacheDir,
      download: options.download,
      loadEmbedder: options.loadEmbedder,
      onProgress: (event) => emit({ kind: 'index', event }),
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
    try {
      // The first snapshot holds the word index (docs/retrieval.md#snapshots): query times are a server's.
      const served = index.snapshots.current;
      const lexicalScoring = served.kind === 'ready' ? served.snapshot.lexical.scoring : 'sqlite';
      const modes: ModeReport[] = [];
      for (const mode of options.modes) {
        const samplesMs: number[] = [];
        const scores: QueryScores[] = [];
        let done = 0;
        for (const [queryId, judged] of dataset.judgments) {
          const began = clock();
          const result = await index.search({
            query: dataset.queries.get(queryId) ?? '',
            top: LEG_DEPTH,
            vaults: undefined,
            namespaces: undefined,
            mode: mode === 'hybrid+mmr' ? 'hybrid' : mode,
            mmr: mode === 'hybrid+mmr',
            mmrLambda: EVAL_MMR_LAMBDA,
          });
          samplesMs.push(clock() - began);
          scores.push(
            scoreQuery(
              result.hits.map((hit) => documentOf.get(hit.path) ?? ''),
              judged,
            ),
          );
          done += 1;
          emit({ kind: 'queries', mode, done, total: dataset.judgments.size });
        }
        modes.push({
          mode,
          ...meanScores(scores),
          queryMsP50: quantile(samplesMs, 0.5),
          queryMsP95: quantile(samplesMs, 0.95),
        });
      }
      return {
        datasetDir: options.datasetDir,
        split: options.split,
        modelId: options.model.id,
        weights: await checkWeights(options.model, options.modelCacheDir),
        documents: dataset.documents.length,
        chunks: summary.chunksEmbedded,
        queries: dataset.judgments.size,
        indexMs,
        lexicalScoring,
        modes,
      };
    } finally {
      await index.close();
    }
  } finally {
    if (!options.workDir) rmSync(work, { recursive: true, force: true });
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

function quantile(samples: readonly number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}
