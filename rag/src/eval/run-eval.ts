import { hasVectors } from '../config/models.js';
import { RagError } from '../errors/rag-error.js';
import type { IndexProgress } from '../indexer/types.js';
import type { WordScoring } from '../words/word-ranking.js';
import { loadBeirDataset, type Split } from './beir-dataset.js';
import { buildEvalIndex, type EvalIndexOptions } from './eval-index.js';
import { checkWeights, type WeightsCheck } from './model-check.js';
import { type EvalMode, type ModeReport, scoreMode } from './score-mode.js';

export interface EvalOptions extends Omit<EvalIndexOptions, 'documents' | 'onProgress'> {
  /** A BEIR-format dataset folder. */
  readonly datasetDir: string;
  readonly split: Split;
  readonly modes: readonly EvalMode[];
  readonly onProgress?: (event: EvalProgress) => void;
}

export type EvalProgress =
  | { readonly kind: 'loaded'; readonly documents: number; readonly queries: number }
  | { readonly kind: 'index'; readonly event: IndexProgress }
  | { readonly kind: 'queries'; readonly mode: EvalMode; readonly done: number; readonly total: number };

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
 * into a throw-away index with the model, exactly as `index` does
 * (`buildEvalIndex`), then scores each mode on it (`scoreMode`).
 */
export async function runEval(options: EvalOptions): Promise<EvalReport> {
  const emit = options.onProgress ?? (() => {});
  const needVectors = options.modes.filter((mode) => mode !== 'lexical');
  if (!hasVectors(options.model) && needVectors.length > 0) {
    throw new RagError('ERR_NO_VECTORS', `${needVectors.join(', ')}: embed_model none has no vectors; use lexical`);
  }
  const dataset = await loadBeirDataset(options.datasetDir, options.split);
  emit({ kind: 'loaded', documents: dataset.documents.length, queries: dataset.judgments.size });
  const built = await buildEvalIndex({
    ...options,
    documents: dataset.documents,
    onProgress: (event) => emit({ kind: 'index', event }),
  });
  try {
    const modes: ModeReport[] = [];
    for (const mode of options.modes) {
      modes.push(
        await scoreMode(built, dataset, mode, {
          clock: options.clock,
          onQuery: (done, total) => emit({ kind: 'queries', mode, done, total }),
        }),
      );
    }
    return {
      datasetDir: options.datasetDir,
      split: options.split,
      modelId: options.model.id,
      weights: await checkWeights(options.model, options.modelCacheDir),
      documents: built.documents,
      chunks: built.chunks,
      queries: dataset.judgments.size,
      indexMs: built.indexMs,
      lexicalScoring: built.lexicalScoring,
      modes,
    };
  } finally {
    await built.close();
  }
}
