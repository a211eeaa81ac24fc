import { statSync } from 'node:fs';
import { MODEL_WEIGHTS_FILE, type ModelSpec } from '../config/models.js';
import { modelFilePath } from '../embed/model-files.js';
import { hashFile } from '../embed/model-inventory.js';

/** The model files whose bytes shape vectors: the weights and the tokenizer. */
const IDENTITY_FILES = [MODEL_WEIGHTS_FILE, 'tokenizer.json'];

export interface HashCache {
  get(key: string): string | undefined;
  set(key: string, value: string): void;
}

/**
 * SHA-256 of each identity file. Hashing 118 MB on every run would cost more
 * than a no-op re-index may take, so a hash is reused while the file's size
 * and mtime are those it was computed for.
 */
export async function modelFileHashes(
  model: ModelSpec,
  cacheDir: string,
  cache: HashCache,
): Promise<Record<string, string>> {
  const hashes: Record<string, string> = {};
  for (const path of IDENTITY_FILES) {
    const file = modelFilePath(cacheDir, model, { path });
    const stats = statSync(file);
    const key = `file_hash:${model.hubRepo}/${path}`;
    const stamp = `${stats.size}:${stats.mtimeMs}`;
    const cached = parseCached(cache.get(key));
    if (cached?.stamp === stamp) {
      hashes[path] = cached.sha256;
      continue;
    }
    const sha256 = await hashFile(file);
    cache.set(key, JSON.stringify({ stamp, sha256 }));
    hashes[path] = sha256;
  }
  return hashes;
}

function parseCached(value: string | undefined): { stamp: string; sha256: string } | undefined {
  if (value === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(value);
    if (typeof parsed === 'object' && parsed !== null && 'stamp' in parsed && 'sha256' in parsed) {
      const { stamp, sha256 } = parsed;
      if (typeof stamp === 'string' && typeof sha256 === 'string') return { stamp, sha256 };
    }
  } catch {
    // A damaged cache entry is recomputed.
  }
  return undefined;
}
