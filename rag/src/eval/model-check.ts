import { existsSync } from 'node:fs';
import { hasVectors, MODEL_WEIGHTS_FILE, type ModelSpec } from '../config/models.js';
import { modelFilePath } from '../embed/model-files.js';
import { hashFile } from '../embed/model-inventory.js';

/** Whether the weights in the cache are the official release's (docs/retrieval.md#eval). */
export interface WeightsCheck {
  readonly file: string;
  readonly sha256: string;
  /** The official release's SHA-256, when the model table pins one. */
  readonly officialSha256: string | undefined;
  readonly verified: boolean;
}

/** Hashes the model's weights file; undefined for an index without a model. */
export async function checkWeights(model: ModelSpec, cacheDir: string): Promise<WeightsCheck | undefined> {
  if (!hasVectors(model)) return undefined;
  const entry = model.files.find((file) => file.path === MODEL_WEIGHTS_FILE) ?? { path: MODEL_WEIGHTS_FILE };
  const file = modelFilePath(cacheDir, model, entry);
  const sha256 = existsSync(file) ? await hashFile(file) : '';
  return {
    file,
    sha256,
    officialSha256: entry.sha256,
    verified: entry.sha256 !== undefined && entry.sha256 === sha256,
  };
}
