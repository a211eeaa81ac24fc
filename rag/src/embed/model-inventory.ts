import { createHash } from 'node:crypto';
import { createReadStream, existsSync, statSync } from 'node:fs';
import type { ModelFile, ModelSpec } from '../config/models.js';
import { modelFilePath } from './model-files.js';

/**
 * One file of a model as the cache holds it (docs/retrieval.md#installing-weights):
 * `verified` has the pinned SHA-256, `mismatch` another one, `unpinned` no
 * hash to check against, `missing` is not there.
 */
export type CachedFileState = 'verified' | 'mismatch' | 'unpinned' | 'missing';

export interface CachedFile {
  readonly file: ModelFile;
  readonly path: string;
  readonly state: CachedFileState;
  readonly sizeBytes: number | undefined;
  /** The file's SHA-256 (undefined when missing). */
  readonly sha256: string | undefined;
}

export interface CachedModel {
  readonly model: ModelSpec;
  readonly files: readonly CachedFile[];
}

/** What the cache holds of each model, every present file hashed (`notegate-rag model list`). */
export async function inventoryModels(models: readonly ModelSpec[], cacheDir: string): Promise<CachedModel[]> {
  const result: CachedModel[] = [];
  for (const model of models) {
    const files: CachedFile[] = [];
    for (const file of model.files) files.push(await inventoryFile(model, cacheDir, file));
    result.push({ model, files });
  }
  return result;
}

async function inventoryFile(model: ModelSpec, cacheDir: string, file: ModelFile): Promise<CachedFile> {
  const where = modelFilePath(cacheDir, model, file);
  if (!existsSync(where)) return { file, path: where, state: 'missing', sizeBytes: undefined, sha256: undefined };
  const sha256 = await hashFile(where);
  const state = file.sha256 === undefined ? 'unpinned' : file.sha256 === sha256 ? 'verified' : 'mismatch';
  return { file, path: where, state, sizeBytes: statSync(where).size, sha256 };
}

/** SHA-256 of a file, streamed (weights run to hundreds of megabytes). */
export async function hashFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk);
  return hash.digest('hex');
}
