import type { PreTrainedModel, PreTrainedTokenizer, Tensor } from '@huggingface/transformers';
import type { ModelSpec } from '../config/models.js';
import { RagError } from '../errors/rag-error.js';
import { type Embedder, SPECIAL_TOKENS_PER_INPUT } from './embedder.js';
import { type HiddenStates, meanPooledRows } from './mean-pooling.js';
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
  const { Tensor } = await import('@huggingface/transformers');
  const { tokenizer, onnx } = await loadPretrained(model, cacheDir, options);
  const specials = tokenizer.encode('').length;
  if (specials !== SPECIAL_TOKENS_PER_INPUT) {
    throw new RagError(
      'ERR_EMBEDDING',
      `tokenizer in ${modelDir(cacheDir, model)} adds ${specials} special tokens, expected ${SPECIAL_TOKENS_PER_INPUT}`,
    );
  }

  const encode = (inputs: readonly string[]) =>
    asEncoded(Tensor, tokenizer([...inputs], { padding: true, truncation: true, max_length: model.windowTokens }));
  const counted = new CountedTexts(
    tokenizer,
    model.windowTokens,
    encode,
    (ids) => new Tensor('int64', ids, [1, ids.length]),
  );

  const embedTexts = async (inputs: readonly string[]): Promise<Float32Array[]> => {
    if (inputs.length === 0) return [];
    const encoded = counted.encoded(inputs) ?? encode(inputs);
    const output: unknown = await onnx(encoded);
    const hidden = output instanceof Object && 'last_hidden_state' in output ? output.last_hidden_state : undefined;
    const mask = encoded.attention_mask;
    if (!(hidden instanceof Tensor) || mask === undefined) {
      throw new RagError('ERR_EMBEDDING', `model ${model.id} returned no last_hidden_state`);
    }
    return meanPooledRows(hiddenStatesOf(hidden, inputs.length, model), bigints(mask));
  };

  return {
    model,
    countTokens: (text) => counted.count(text),
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

/** Ours: texts whose token ids are kept after a count, for the embedding that follows (a window's chunks and more). */
const COUNTED_TEXTS = 1024;

/**
 * The token ids of the texts counted last. The chunker counts every chunk's input exactly as the model
 * will read it, and the embedding of that chunk follows: one input alone (the default batch) is then
 * built from those ids rather than tokenized a second time (docs/retrieval.md#embedding), with the
 * tensors the tokenizer gives (its special tokens around the ids, cut at the window, the same mask and
 * type ids) — where the tokenizer's own output for a sample text shows it builds them that way;
 * otherwise, or for a text not counted, the tokenizer runs.
 */
class CountedTexts {
  readonly #ids = new Map<string, number[]>();
  readonly #build: ((ids: readonly number[]) => Encoded) | undefined;

  constructor(
    private readonly tokenizer: PreTrainedTokenizer,
    windowTokens: number,
    encode: (inputs: readonly string[]) => Encoded,
    tensor: (ids: BigInt64Array) => Tensor,
  ) {
    const [open, close] = tokenizer.encode('');
    const samples = ['a sample, of text', 'words of a text longer than the window '.repeat(windowTokens / 4)];
    const keys = Object.keys(encode(samples.slice(0, 1)));
    const build = (ids: readonly number[]): Encoded => {
      const withSpecials = [open ?? 0, ...ids, close ?? 0].slice(0, windowTokens);
      const encoded: Encoded = {
        input_ids: tensor(BigInt64Array.from(withSpecials, BigInt)),
        attention_mask: tensor(new BigInt64Array(withSpecials.length).fill(1n)),
      };
      if (keys.includes('token_type_ids')) encoded.token_type_ids = tensor(new BigInt64Array(withSpecials.length));
      return encoded;
    };
    const same = samples.every((sample) =>
      sameEncoding(encode([sample]), build(tokenizer.encode(sample, { add_special_tokens: false }))),
    );
    this.#build = same ? build : undefined;
  }

  count(text: string): number {
    const ids = this.tokenizer.encode(text, { add_special_tokens: false });
    if (this.#build) {
      this.#ids.delete(text);
      this.#ids.set(text, ids);
      if (this.#ids.size > COUNTED_TEXTS) this.#ids.delete(this.#ids.keys().next().value ?? '');
    }
    return ids.length;
  }

  /** The model's input for `inputs` from counted ids, when it is one counted text; else undefined. */
  encoded(inputs: readonly string[]): Encoded | undefined {
    const [text] = inputs;
    const ids = text === undefined ? undefined : this.#ids.get(text);
    if (inputs.length !== 1 || text === undefined || ids === undefined || !this.#build) return undefined;
    this.#ids.delete(text);
    return this.#build(ids);
  }
}

function sameEncoding(a: Encoded, b: Encoded): boolean {
  const keys = Object.keys(a).sort();
  return (
    keys.join() === Object.keys(b).sort().join() &&
    keys.every((key) => {
      const [x, y] = [a[key], b[key]];
      return x !== undefined && y !== undefined && x.dims.join() === y.dims.join() && x.data.join() === y.data.join();
    })
  );
}

function hiddenStatesOf(hidden: Tensor, count: number, model: ModelSpec): HiddenStates {
  const { data, dims } = hidden;
  const [rows, tokens, dimension] = dims;
  if (
    !(data instanceof Float32Array) ||
    dims.length !== 3 ||
    rows !== count ||
    tokens === undefined ||
    dimension !== model.dimension
  ) {
    throw new RagError(
      'ERR_EMBEDDING',
      `model ${model.id} produced hidden states of shape [${dims.join(', ')}], expected [${count}, tokens, ${model.dimension}]`,
    );
  }
  return { data, rows, tokens, dimension };
}

function bigints(mask: Tensor): BigInt64Array {
  if (!(mask.data instanceof BigInt64Array)) throw new RagError('ERR_EMBEDDING', 'the attention mask is not int64');
  return mask.data;
}
