/**
 * The embedding models the config may name (docs/retrieval.md#config). Each is
 * the quantized ONNX conversion published under `Xenova/<name>`; the hashes
 * are the upstream files' SHA-256 (docs/retrieval.md#model-cache). A file without a known hash is never downloaded.
 */
export interface ModelFile {
  /** Path inside the model folder, `/`-separated. */
  readonly path: string;
  readonly sha256?: string;
}

export interface ModelSpec {
  /** The id as the config writes it. */
  readonly id: string;
  /** The hub repository that publishes the quantized ONNX conversion. */
  readonly hubRepo: string;
  readonly revision: string;
  readonly dimension: number;
  /** The model's input window in tokens, special tokens and prefix included. */
  readonly windowTokens: number;
  /** Prefixes the model was trained with (docs/retrieval.md#search-api). */
  readonly passagePrefix: string;
  readonly queryPrefix: string;
  readonly files: readonly ModelFile[];
}

/** The ONNX weights, read with `dtype: 'q8'`. */
export const MODEL_WEIGHTS_FILE = 'onnx/model_quantized.onnx';

const E5_PREFIXES = { passagePrefix: 'passage: ', queryPrefix: 'query: ' } as const;

/** The four files transformers.js reads (docs/retrieval.md#model-cache), with their SHA-256 where known. */
function modelFiles(sha256?: {
  config: string;
  tokenizer: string;
  tokenizerConfig: string;
  weights: string;
}): ModelFile[] {
  return [
    { path: 'config.json', sha256: sha256?.config },
    { path: 'tokenizer.json', sha256: sha256?.tokenizer },
    { path: 'tokenizer_config.json', sha256: sha256?.tokenizerConfig },
    { path: MODEL_WEIGHTS_FILE, sha256: sha256?.weights },
  ];
}

export const MODELS: readonly ModelSpec[] = [
  {
    id: 'intfloat/multilingual-e5-small',
    hubRepo: 'Xenova/multilingual-e5-small',
    revision: '761b726dd34fb83930e26aab4e9ac3899aa1fa78',
    dimension: 384,
    windowTokens: 512,
    ...E5_PREFIXES,
    files: modelFiles({
      config: 'cb99455288675345e1a4f411438d5d0adbba5fbd3a67ea4fb03c015433b996c1',
      tokenizer: '0b44a9d7b51c3c62626640cda0e2c2f70fdacdc25bbbd68038369d14ebdf4c39',
      tokenizerConfig: 'a1d6bc8734a6f635dc158508bef000f8e2e5a759c7d92f984b2c86e5ff53425b',
      weights: 'f80102d3f2a1229f387d3c81909990d8945513e347b0eab049f7de3c6f98c193',
    }),
  },
  {
    id: 'sentence-transformers/all-MiniLM-L6-v2',
    hubRepo: 'Xenova/all-MiniLM-L6-v2',
    revision: 'main',
    dimension: 384,
    // Trained on 256 word pieces, although its tokenizer_config says 512 (docs/retrieval.md#model-cache).
    windowTokens: 256,
    passagePrefix: '',
    queryPrefix: '',
    files: modelFiles({
      config: '7135149f7cffa1a573466c6e4d8423ed73b62fd2332c575bf738a0d033f70df7',
      tokenizer: 'da0e79933b9ed51798a3ae27893d3c5fa4a201126cef75586296df9b4d2c62a0',
      tokenizerConfig: '9261e7d79b44c8195c1cada2b453e55b00aeb81e907a6664974b4d7776172ab3',
      weights: 'afdb6f1a0e45b715d0bb9b11772f032c399babd23bfc31fed1c170afc848bdb1',
    }),
  },
  {
    id: 'intfloat/multilingual-e5-base',
    hubRepo: 'Xenova/multilingual-e5-base',
    revision: 'main',
    dimension: 768,
    windowTokens: 512,
    ...E5_PREFIXES,
    files: modelFiles(),
  },
  {
    id: 'intfloat/multilingual-e5-large',
    hubRepo: 'Xenova/multilingual-e5-large',
    revision: 'main',
    dimension: 1024,
    windowTokens: 512,
    ...E5_PREFIXES,
    files: modelFiles(),
  },
];

export const DEFAULT_MODEL_ID = 'intfloat/multilingual-e5-small';

/**
 * `embed_model: "none"`: a lexical-only index, no embeddings and no model
 * files (docs/retrieval.md#lexical-only-indexes). Chunks are sized as for the
 * e5 models' window, counted without a tokenizer.
 */
export const NO_MODEL: ModelSpec = {
  id: 'none',
  hubRepo: '',
  revision: '',
  dimension: 0,
  windowTokens: 512,
  passagePrefix: '',
  queryPrefix: '',
  files: [],
};

export function findModel(id: string): ModelSpec | undefined {
  return id === NO_MODEL.id ? NO_MODEL : MODELS.find((model) => model.id === id);
}

/** Whether the model embeds (false for `none`: the index has no vectors). */
export function hasVectors(model: ModelSpec): boolean {
  return model.dimension > 0;
}

/** What `embed_model` may be, for error messages and help texts. */
export function modelWhitelist(): string {
  return `${MODELS.map((model) => model.id).join(', ')}, or none (no embeddings: a lexical-only index)`;
}
