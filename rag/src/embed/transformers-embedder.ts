import type { PreTrainedModel, PreTrainedTokenizer, Tensor } from '@huggingface/transformers';
import type { ModelSpec } from '../config/models.js';
import { RagError } from '../errors/rag-error.js';
import { type Embedder, SPECIAL_TOKENS_PER_INPUT } from './embedder.js';
import { modelDir } from './model-files.js';

export interface TransformersEmbedderOptions {
  /** ONNX Runtime intra-op threads; 1 was ~35% faster than 2 on 2-core machines (docs/retrieval.md#embedding). */
  readonly intraOpThreads?: number;
}

type Encoded = Record<string, Tensor>;

/**
 * Loads the quantized ONNX model from the cache, in-process, never from the
 * network: downloads are `ensureModelFiles`' job, where they are verified.
 */
export async function loadTransformersEmbedder(
  model: ModelSpec,
  cacheDir: string,
  options: TransformersEmbedderOptions = {},
): Promise<Embedder> {
  const { mean_pooling, Tensor } = await import('@huggingface/transformers');
  const { tokenizer, onnx } = await loadPretrained(model, cacheDir, options);
  const specials = tokenizer.encode('').length;
  if (specials !== SPECIAL_TOKENS_PER_INPUT) {
    throw new RagError(
      'ERR_EMBEDDING',
      `tokenizer in ${modelDir(cacheDir, model)} adds ${specials} special tokens, expected ${SPECIAL_TOKENS_PER_INPUT}`,
    );
  }

  const embedTexts = async (inputs: readonly string[]): Promise<Float32Array[]> => {
    if (inputs.length === 0) return [];
    const encoded = asEncoded(
      Tensor,
      tokenizer([...inputs], { padding: true, truncation: true, max_length: model.windowTokens }),
    );
    const output: unknown = await onnx(encoded);
    const hidden = output instanceof Object && 'last_hidden_state' in output ? output.last_hidden_state : undefined;
    const mask = encoded.attention_mask;
    if (!(hidden instanceof Tensor) || mask === undefined) {
      throw new RagError('ERR_EMBEDDING', `model ${model.id} returned no last_hidden_state`);
    }
    const pooled = mean_pooling(hidden, mask).normalize(2, -1);
    return rowsOf(pooled, inputs.length, model);
  };

  return {
    model,
    countTokens: (text) => tokenizer.encode(text, { add_special_tokens: false }).length,
    embedTexts,
    embedQuery: async (query) => {
      const [vector] = await embedTexts([`${model.queryPrefix}${query}`]);
      if (!vector) throw new RagError('ERR_EMBEDDING', `model ${model.id} returned no vector for the query`);
      return vector;
    },
    dispose: async () => {
      await onnx.dispose();
    },
  };
}

/**
 * The tokenizer and the quantized ONNX model of `model`, read from the cache
 * with the settings every loader uses (the embedder, and the benchmarks that
 * measure it against raw ONNX Runtime).
 */
export async function loadPretrained(
  model: ModelSpec,
  cacheDir: string,
  options: TransformersEmbedderOptions = {},
): Promise<{ readonly tokenizer: PreTrainedTokenizer; readonly onnx: PreTrainedModel }> {
  // Imported on first use: a run with nothing to embed (the common case) never pays for loading ONNX Runtime.
  const { AutoModel, AutoTokenizer, env } = await import('@huggingface/transformers');
  // docs/retrieval.md#model-cache: no remote fetches, and no cache written into node_modules.
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.useFSCache = false;
  env.localModelPath = cacheDir;
  const tokenizer = await AutoTokenizer.from_pretrained(model.hubRepo, { local_files_only: true });
  const onnx = await AutoModel.from_pretrained(model.hubRepo, {
    local_files_only: true,
    dtype: 'q8',
    device: 'cpu',
    session_options: { intraOpNumThreads: options.intraOpThreads ?? 1 },
  });
  return { tokenizer, onnx };
}

function asEncoded(tensorClass: typeof Tensor, value: unknown): Encoded {
  const encoded: Encoded = {};
  if (value instanceof Object) {
    for (const [key, tensor] of Object.entries(value)) if (tensor instanceof tensorClass) encoded[key] = tensor;
  }
  return encoded;
}

function rowsOf(pooled: Tensor, count: number, model: ModelSpec): Float32Array[] {
  const data = pooled.data;
  const [rows, dimension] = pooled.dims;
  if (!(data instanceof Float32Array) || rows !== count || dimension !== model.dimension) {
    throw new RagError(
      'ERR_EMBEDDING',
      `model ${model.id} produced vectors of shape [${pooled.dims.join(', ')}], expected [${count}, ${model.dimension}]`,
    );
  }
  return Array.from({ length: rows }, (_, i) => data.slice(i * dimension, (i + 1) * dimension));
}
