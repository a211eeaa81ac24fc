import type { FusionSettings } from '../search/fusion.js';
import { LEG_DEPTH, type SearchMode } from '../search/hybrid-search.js';
import type { BeirDataset } from './beir-dataset.js';
import type { EvalIndex } from './eval-index.js';
import { meanScores, type QueryScores, scoreQuery } from './metrics.js';

/** What `eval` measures: the three legs' combinations, and hybrid re-ordered by MMR. */
export type EvalMode = SearchMode | 'hybrid+mmr';
export const EVAL_MODES: readonly EvalMode[] = ['lexical', 'dense', 'hybrid', 'hybrid+mmr'];
/** MMR's λ in `hybrid+mmr`: the search API's default (docs/retrieval.md#post-search). */
const EVAL_MMR_LAMBDA = 0.7;

export interface ModeReport extends QueryScores {
  readonly mode: EvalMode;
  /** Per query, query embedding included. */
  readonly queryMsP50: number;
  readonly queryMsP95: number;
}

export interface ScoreOptions {
  /** The fusion to search with (default: the search's own). */
  readonly fusion?: FusionSettings;
  readonly clock?: () => number;
  readonly onQuery?: (done: number, total: number) => void;
}

/**
 * Runs every judged query of `judged` through the search the server runs,
 * LEG_DEPTH hits deep, on an index built by `buildEvalIndex`, and scores the
 * rankings (metrics.ts). One index serves any number of modes and fusions.
 */
export async function scoreMode(
  built: EvalIndex,
  judged: Pick<BeirDataset, 'queries' | 'judgments'>,
  mode: EvalMode,
  options: ScoreOptions = {},
): Promise<ModeReport> {
  const clock = options.clock ?? (() => performance.now());
  const samplesMs: number[] = [];
  const scores: QueryScores[] = [];
  for (const [queryId, grades] of judged.judgments) {
    const began = clock();
    const result = await built.index.search({
      query: judged.queries.get(queryId) ?? '',
      top: LEG_DEPTH,
      vaults: undefined,
      namespaces: undefined,
      mode: mode === 'hybrid+mmr' ? 'hybrid' : mode,
      mmr: mode === 'hybrid+mmr',
      mmrLambda: EVAL_MMR_LAMBDA,
      fusion: options.fusion,
    });
    samplesMs.push(clock() - began);
    scores.push(
      scoreQuery(
        result.hits.map((hit) => built.documentOf.get(hit.path) ?? ''),
        grades,
      ),
    );
    options.onQuery?.(scores.length, judged.judgments.size);
  }
  return {
    mode,
    ...meanScores(scores),
    queryMsP50: quantile(samplesMs, 0.5),
    queryMsP95: quantile(samplesMs, 0.95),
  };
}

function quantile(samples: readonly number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}
