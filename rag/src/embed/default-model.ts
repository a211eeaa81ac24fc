import { DEFAULT_MODEL_ID, findModel, type ModelSpec, NO_MODEL } from '../config/models.js';
import { embeddingRuntimeInstalled } from './embedding-runtime.js';
import { missingModelFiles } from './model-files.js';

/**
 * The model a new index gets (docs/retrieval.md#a-folder-in-one-command): the default model when every
 * one of its files is in the cache and the embedding runtime is installed (docs/install.md#vectors), else
 * none (a lexical-only index that works at once, offline). Nothing is downloaded to decide.
 */
export function defaultModelIn(modelCacheDir: string): ModelSpec {
  const model = findModel(DEFAULT_MODEL_ID);
  return model && embeddingRuntimeInstalled() && missingModelFiles(modelCacheDir, model).length === 0
    ? model
    : NO_MODEL;
}
