/**
 * `@notegate/rag`: index markdown vaults and search them, as the `notegate-rag`
 * CLI does. Load a config, run an index, open the index for search (a
 * `SnapshotSource` follows it while an index run updates it), search a
 * snapshot, or serve the search API.
 */

export { loadEnvironment, type RagEnvironment } from './config/environment.js';
export { defaultConfigPath, loadRagConfig, type RagConfig, type ResolvedVault } from './config/load-config.js';
export { DEFAULT_MODEL_ID, findModel, MODELS, type ModelSpec } from './config/models.js';
export { type DownloadOptions, ensureModelFiles, type FetchLike } from './embed/download.js';
export type { Embedder } from './embed/embedder.js';
export { ResidentModel, type ResidentModelState } from './embed/resident-model.js';
export { loadTransformersEmbedder } from './embed/transformers-embedder.js';
export { RagError, type RagErrorCode } from './errors/rag-error.js';
export { parseSearchRequest, SEARCH_DEFAULTS, type SearchRequest } from './http/search-request.js';
export { createSearchServer, type SearchServerDeps } from './http/search-server.js';
export { DEFAULT_BATCH_SIZE, DEFAULT_WINDOW_CHUNKS, type RunIndexOptions, runIndex } from './indexer/run-index.js';
export type { FailedFile, FileOutcome, FileWarning, IndexProgress, IndexSummary } from './indexer/types.js';
export { type SearchHit, type SearchOptions, type SearchResult, searchSnapshot } from './search/hybrid-search.js';
export { IndexSnapshot } from './snapshot/index-snapshot.js';
export { SnapshotSource } from './snapshot/snapshot-source.js';
