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
export { ResidentModel, type ResidentModelState } from './embed/resident-model.js';
export { loadPretrained, loadTransformersEmbedder } from './embed/transformers-embedder.js';
export { RagError, type RagErrorCode } from './errors/rag-error.js';
export { parseSearchRequest, SEARCH_DEFAULTS, type SearchRequest } from './http/search-request.js';
export { createSearchServer, type SearchServerDeps } from './http/search-server.js';
export { DEFAULT_BATCH_SIZE, DEFAULT_WINDOW_CHUNKS, type RunIndexOptions, runIndex } from './index/run-index.js';
export type { FailedFile, FileOutcome, FileWarning, IndexProgress, IndexSummary } from './index/types.js';
export { type ChunkText, rankByContainment } from './search/containment-score.js';
export { denseLeg } from './search/dense-leg.js';
export { buildFtsQuery, type FtsQuery, type LexicalStrategy } from './search/fts-query.js';
export {
  candidatePoolSize,
  lexicalSource,
  type SearchHit,
  type SearchOptions,
  type SearchResult,
  searchSnapshot,
} from './search/hybrid-search.js';
export { Int8VectorSearch } from './search/int8-scan.js';
export { ftsQueryOptions, type LexicalSource, lexicalLeg, MATCH_CAP, strategyFor } from './search/lexical-leg.js';
export { COLUMN_WEIGHTS } from './search/lexical-weights.js';
export { mmrOrder } from './search/mmr.js';
export { type FusedCandidate, fuseRrf, RRF_K } from './search/rrf.js';
export type { ScoredRow } from './search/top-k.js';
export { dotRow, exactScan, type RowRange, rangesFor, type VectorSearch } from './search/vector-scan.js';
export { encodeModule, type FunctionDefinition, op, VALUE_TYPE } from './search/wasm-encoding.js';
export { IndexSnapshot } from './snapshot/index-snapshot.js';
export { SnapshotSource } from './snapshot/snapshot-source.js';
export { type IndexMeta, readIndexMeta } from './store/index-meta.js';
export { type FileRecord, type FileRow, IndexStore, type StoredChunk } from './store/index-store.js';
export { loadVectorMatrix, type VectorMatrix } from './store/load-vectors.js';
export { openDatabase } from './store/open-database.js';
export { type FtsTokenizer, SCHEMA_VERSION } from './store/schema.js';
export { decodeVector, VECTOR_FORMAT } from './store/vector-codec.js';
export { type SkippedFile, type SkipReason, type VaultFile, walkVault } from './walk/walk-vault.js';
