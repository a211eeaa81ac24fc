/** Stable codes of the retrieval package's failures; the message says what to do. */
export type RagErrorCode =
  /** The model files are missing and could not be downloaded. */
  | 'ERR_MODEL_UNAVAILABLE'
  /** The model needs @huggingface/transformers (an optional peer dependency) and it is not installed. */
  | 'ERR_EMBEDDING_RUNTIME_MISSING'
  /** A downloaded model file does not have its pinned SHA-256. */
  | 'ERR_MODEL_HASH_MISMATCH'
  /** `model install` refused its sources (not the model's files, unreadable, unpinned); nothing was installed. */
  | 'ERR_MODEL_INSTALL'
  /** The model produced something other than one vector of its dimension per input. */
  | 'ERR_EMBEDDING'
  /** Another `index` run holds the index. */
  | 'ERR_INDEX_BUSY'
  /** The index was built with another model or dimension (needs `--rebuild`). */
  | 'ERR_INDEX_MODEL_MISMATCH'
  /** The index file has a schema this version cannot use (needs `--rebuild`). */
  | 'ERR_INDEX_SCHEMA'
  /** There is no index file yet (run `index`). */
  | 'ERR_INDEX_MISSING'
  /** The index cannot be read now (still loading, damaged, another format or model). */
  | 'ERR_INDEX_UNAVAILABLE'
  /** A search needs vectors and the index has none (`embed_model: none`). */
  | 'ERR_NO_VECTORS'
  /** An evaluation dataset file is malformed (the message names the file and line). */
  | 'ERR_DATASET'
  /** The index file cannot be made owner-only (it belongs to another user, or its directory cannot be created). */
  | 'ERR_INDEX_PERMISSIONS'
  /** The search page's files are not where the package keeps them (an install without its build). */
  | 'ERR_PAGE_MISSING';

export class RagError extends Error {
  constructor(
    readonly code: RagErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'RagError';
  }
}
