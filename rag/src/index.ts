/** `@notegate/rag`: the functions behind `notegate-rag`. */

export { chunkNote } from './chunk/chunker.js';
export { chunkerSettingsFor } from './chunk/settings.js';
export type { Chunk, ChunkedNote, ChunkerSettings, CountTokens } from './chunk/types.js';
export { loadEnvironment, type RagEnvironment } from './config/environment.js';
export { defaultConfigPath, loadRagConfig, type RagConfig, type ResolvedVault } from './config/load-config.js';
export { DEFAULT_MODEL_ID, findModel, MODELS, type ModelSpec } from './config/models.js';
export { findRepositoryRoot } from './config/repo-root.js';
export { type DownloadOptions, ensureModelFiles, type FetchLike } from './embed/download.js';
export type { Embedder } from './embed/embedder.js';
export { loadTransformersEmbedder } from './embed/transformers-embedder.js';
export { RagError, type RagErrorCode } from './errors/rag-error.js';
export { DEFAULT_BATCH_SIZE, DEFAULT_WINDOW_CHUNKS, type RunIndexOptions, runIndex } from './index/run-index.js';
export type { FailedFile, FileOutcome, FileWarning, IndexProgress, IndexSummary } from './index/types.js';
export { type IndexMeta, readIndexMeta } from './store/index-meta.js';
export { type FileRecord, type FileRow, IndexStore, type StoredChunk } from './store/index-store.js';
export { loadVectorMatrix, type VectorMatrix } from './store/load-vectors.js';
export { openDatabase } from './store/open-database.js';
export { SCHEMA_VERSION } from './store/schema.js';
export { decodeVector, VECTOR_FORMAT } from './store/vector-codec.js';
export type { SkippedFile, SkipReason } from './walk/walk-vault.js';
