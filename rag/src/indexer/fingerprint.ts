import { createHash } from 'node:crypto';
import { BREADCRUMB_FORMAT } from '../chunk/breadcrumb.js';
import { CHUNKER_VERSION } from '../chunk/settings.js';
import type { ChunkerSettings } from '../chunk/types.js';
import type { ModelSpec } from '../config/models.js';

export interface FingerprintInputs {
  readonly model: string;
  /** SHA-256 of the weights and the tokenizer, as found in the cache. */
  readonly modelFiles: Readonly<Record<string, string>>;
  readonly dtype: 'q8';
  readonly pooling: 'mean, L2-normalized';
  readonly dimension: number;
  readonly passagePrefix: string;
  readonly queryPrefix: string;
  readonly chunkerVersion: number;
  readonly chunker: ChunkerSettings;
  readonly breadcrumb: string;
}

/** docs/retrieval.md#index-runs: everything that changes a stored vector. */
export function fingerprintInputsOf(
  model: ModelSpec,
  modelFiles: Readonly<Record<string, string>>,
  chunker: ChunkerSettings,
): FingerprintInputs {
  return {
    model: model.id,
    modelFiles,
    dtype: 'q8',
    pooling: 'mean, L2-normalized',
    dimension: model.dimension,
    passagePrefix: model.passagePrefix,
    queryPrefix: model.queryPrefix,
    chunkerVersion: CHUNKER_VERSION,
    chunker,
    breadcrumb: BREADCRUMB_FORMAT,
  };
}

/** SHA-256 (hex) of the inputs as canonical JSON (keys sorted at every level). */
export function fingerprintOf(inputs: FingerprintInputs): string {
  return createHash('sha256').update(canonicalJson(inputs)).digest('hex');
}

export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}
