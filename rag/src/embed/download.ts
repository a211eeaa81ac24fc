import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import path from 'node:path';
import { hasVectors, type ModelFile, type ModelSpec } from '../config/models.js';
import { RagError } from '../errors/rag-error.js';
import { requireEmbeddingRuntime } from './embedding-runtime.js';
import { hubFileUrl, missingModelFiles, modelFilePath, placeFilesMessage } from './model-files.js';

export type FetchLike = (url: URL, init: { signal: AbortSignal }) => Promise<Response>;

export interface DownloadOptions {
  readonly hubUrl: URL;
  readonly fetch: FetchLike;
  /** False: never touch the network, only say what is missing. */
  readonly enabled: boolean;
  readonly timeoutMs?: number;
  readonly onFile?: (file: ModelFile, url: URL) => void;
  /** After each piece of a download: bytes so far, and the total when the hub sent a Content-Length. */
  readonly onBytes?: (file: ModelFile, bytesDone: number, bytesTotal: number | undefined) => void;
}

const DOWNLOAD_TIMEOUT_MS = 30 * 60 * 1000;

/**
 * Options for a caller that never downloads (a search, the index follower, the demo, tests): a missing
 * model file is reported with the `hubUrl` address to fetch it from, and nothing touches the network.
 */
export function noDownloads(hubUrl: URL): DownloadOptions {
  return { hubUrl, fetch: () => Promise.reject(new Error('downloads are off')), enabled: false };
}

/**
 * Makes sure every file of the model is in the cache. Files already there are
 * trusted as they are; a missing file is downloaded once into a temporary
 * file, checked against its pinned SHA-256 and only then renamed into place.
 */
export async function ensureModelFiles(model: ModelSpec, cacheDir: string, options: DownloadOptions): Promise<void> {
  // Nothing is worth downloading for a model the installed packages cannot run.
  if (hasVectors(model)) requireEmbeddingRuntime(model);
  const missing = missingModelFiles(cacheDir, model);
  if (missing.length === 0) return;
  const place = () => placeFilesMessage(cacheDir, model, missingModelFiles(cacheDir, model), options.hubUrl);
  if (!options.enabled) {
    throw new RagError('ERR_MODEL_UNAVAILABLE', `model ${model.id} is not in the model cache ${cacheDir}.\n${place()}`);
  }
  const unpinned = missing.filter((file) => file.sha256 === undefined);
  if (unpinned.length > 0) {
    throw new RagError(
      'ERR_MODEL_UNAVAILABLE',
      `model ${model.id} is not in the model cache ${cacheDir}, and it is not downloaded because no SHA-256 is pinned for ${unpinned.map((f) => f.path).join(', ')}.\n${place()}`,
    );
  }
  for (const file of missing) {
    try {
      await downloadFile(model, file, cacheDir, options);
    } catch (err) {
      if (err instanceof RagError) throw err;
      const cause = err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
      throw new RagError('ERR_MODEL_UNAVAILABLE', `model ${model.id} could not be downloaded (${cause}).\n${place()}`);
    }
  }
}

async function downloadFile(
  model: ModelSpec,
  file: ModelFile,
  cacheDir: string,
  options: DownloadOptions,
): Promise<void> {
  const url = hubFileUrl(options.hubUrl, model, file);
  options.onFile?.(file, url);
  const response = await options.fetch(url, { signal: AbortSignal.timeout(options.timeoutMs ?? DOWNLOAD_TIMEOUT_MS) });
  if (!response.ok || response.body === null) throw new Error(`HTTP ${response.status} for ${url.href}`);
  const target = modelFilePath(cacheDir, model, file);
  mkdirSync(path.dirname(target), { recursive: true });
  const temporary = `${target}.download-${process.pid}-${randomBytes(4).toString('hex')}`;
  const hash = createHash('sha256');
  const handle = await open(temporary, 'wx');
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  const bytesTotal = Number.isSafeInteger(declared) && declared >= 0 ? declared : undefined;
  let bytesDone = 0;
  try {
    for await (const chunk of response.body) {
      hash.update(chunk);
      await handle.write(chunk);
      bytesDone += chunk.byteLength;
      options.onBytes?.(file, bytesDone, bytesTotal);
    }
    await handle.sync();
  } catch (err) {
    await handle.close();
    rmSync(temporary, { force: true });
    throw err;
  }
  await handle.close();
  const actual = hash.digest('hex');
  if (actual !== file.sha256) {
    rmSync(temporary, { force: true });
    throw new RagError(
      'ERR_MODEL_HASH_MISMATCH',
      `downloaded ${url.href} has SHA-256 ${actual}, expected ${file.sha256}; the file was deleted, nothing was installed`,
    );
  }
  await rename(temporary, target);
}
