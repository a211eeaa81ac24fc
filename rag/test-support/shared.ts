import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findRepositoryRoot } from '../src/config/repo-root.js';

/**
 * The shared folder beside the repository (stand-in models, eval data):
 * `NOTEGATE_SHARED_DIR`, else `<repository root>/../shared`. The one place the
 * tests read the environment.
 */
export function sharedDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const dir = process.env.NOTEGATE_SHARED_DIR ?? path.join(findRepositoryRoot(here), '..', 'shared');
  if (!existsSync(path.join(dir, 'models-standin'))) {
    throw new Error(
      `the shared folder with models-standin/ was not found at ${dir}; set NOTEGATE_SHARED_DIR to the folder that holds models-standin/`,
    );
  }
  return dir;
}

/** The stand-in models (random weights, real architecture and tokenizer) in the cache layout. */
export function standinModelCache(): string {
  return path.join(sharedDir(), 'models-standin');
}

/** The real (hash-verified) small model files: configs and tokenizers, no weights. */
export function realModelFiles(): string {
  return path.join(sharedDir(), 'models');
}

/** The repository's compiled CLI. */
export function cliPath(): string {
  return path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'src', 'cli', 'main.js');
}
