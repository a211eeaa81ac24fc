import { approximateTokenCount } from '../chunk/approximate-tokens.js';
import type { ModelSpec } from '../config/models.js';
import type { Embedder } from '../embed/embedder.js';

/**
 * The "embedder" of an index without vectors (`embed_model: none`,
 * docs/retrieval.md#lexical-only-indexes): chunks are sized by an approximate
 * token count, each gets an empty vector, and nothing is loaded or downloaded.
 */
export function lexicalOnlyEmbedder(model: ModelSpec): Embedder {
  return {
    model,
    countTokens: approximateTokenCount,
    embedTexts: async (inputs) => inputs.map(() => new Float32Array(0)),
    embedQuery: () => Promise.reject(new Error('an index without vectors embeds no queries')),
    dispose: async () => undefined,
  };
}
