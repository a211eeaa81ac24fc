import type { ModelSpec } from '../config/models.js';
import { RagError } from '../errors/rag-error.js';

/**
 * The package that runs embedding models in-process. It is an optional peer dependency: with ONNX Runtime
 * it is about 480 MB on disk, which a lexical-only index never loads (docs/install.md#vectors).
 */
export const EMBEDDING_RUNTIME = '@huggingface/transformers';
/** The versions this package works with: the range of its peerDependencies entry (a test keeps the two equal). */
export const EMBEDDING_RUNTIME_RANGE = '^4.3.1';

/** Resolves a bare specifier from this module, as the embedder's `import()` will; throws when it is not installed. */
export type Resolve = (specifier: string) => string;

const resolveFromHere: Resolve = (specifier) => import.meta.resolve(specifier);

export function embeddingRuntimeInstalled(resolve: Resolve = resolveFromHere): boolean {
  try {
    resolve(EMBEDDING_RUNTIME);
    return true;
  } catch {
    return false;
  }
}

/** Fails before anything is downloaded when `model` needs the runtime and it is not installed. */
export function requireEmbeddingRuntime(model: ModelSpec, resolve: Resolve = resolveFromHere): void {
  if (embeddingRuntimeInstalled(resolve)) return;
  throw new RagError(
    'ERR_EMBEDDING_RUNTIME_MISSING',
    `embed_model ${model.id} needs the package ${EMBEDDING_RUNTIME}, which is not installed (vectors are optional). ` +
      `Install it beside notegate: npm install ${EMBEDDING_RUNTIME}@${EMBEDDING_RUNTIME_RANGE} ` +
      `(with -g for a global notegate), or set "embed_model": "none" for a lexical-only index.`,
  );
}
