/**
 * `@notegate/rag`: index markdown vaults and search them, as the `notegate-rag`
 * CLI does. Load a config, run an index, open it for search in-process
 * (`openIndex(...).search(...)`, which follows the file while an index run
 * updates it), keep it up to date with the vault folders (`LiveIndex`, or its
 * parts `watchVaults` and `IndexFollower`), write notes into a vault and
 * search them (`NotesEngine`), serve the search API, or measure quality on a
 * BEIR dataset (`runEval`).
 */

export { type ConfigLocation, type ConfigSource, locateConfig } from './config/config-location.js';
export { loadEnvironment, type RagEnvironment } from './config/environment.js';
export { loadRagConfig, type RagConfig, type ResolvedVault } from './config/load-config.js';
export { DEFAULT_MODEL_ID, findModel, hasVectors, MODELS, type ModelSpec, NO_MODEL } from './config/models.js';
export { notesFolderConfig } from './config/notes-folder.js';
export { defaultModelIn } from './embed/default-model.js';
export { type DownloadOptions, ensureModelFiles, type FetchLike, noDownloads } from './embed/download.js';
export type { Embedder } from './embed/embedder.js';
export { EMBEDDING_RUNTIME, embeddingRuntimeInstalled } from './embed/embedding-runtime.js';
export { missingModelFiles } from './embed/model-files.js';
export { ResidentModel, type ResidentModelState } from './embed/resident-model.js';
export { loadTransformersEmbedder } from './embed/transformers-embedder.js';
export { RagError, type RagErrorCode } from './errors/rag-error.js';
export { type BeirDataset, type BeirDocument, loadBeirDataset, type Split } from './eval/beir-dataset.js';
export { buildEvalIndex, type EvalIndex, type EvalIndexOptions } from './eval/eval-index.js';
export { dedupe, meanScores, ndcgAt, type QueryScores, recallAt, scoreQuery } from './eval/metrics.js';
export type { WeightsCheck } from './eval/model-check.js';
export { type EvalOptions, type EvalProgress, type EvalReport, runEval } from './eval/run-eval.js';
export { EVAL_MODES, type EvalMode, type ModeReport, type ScoreOptions, scoreMode } from './eval/score-mode.js';
export { ApiError, type ApiErrorCode } from './http/api-errors.js';
export { createSearchServer, type SearchServerDeps } from './http/search-server.js';
export { IndexFollower, type IndexFollowerOptions } from './indexer/index-follower.js';
export { DEFAULT_BATCH_SIZE, DEFAULT_WINDOW_CHUNKS, type RunIndexOptions, runIndex } from './indexer/run-index.js';
export type { FailedFile, FileOutcome, FileWarning, IndexProgress, IndexSummary } from './indexer/types.js';
export { LiveIndex, type LiveIndexOptions } from './live-index/live-index.js';
export { type NotesToolSpec, type NotesTools, notesTools } from './mcp/notes-tools.js';
export {
  TOOL_FAILURES,
  TOOL_REFUSALS,
  ToolFailure,
  type ToolPreparation,
  type ToolRefusal,
  type ToolRefusalCode,
} from './mcp/tool-errors.js';
export { runTool, type ToolRun, toolErrorResult } from './mcp/tool-result.js';
export { notePathProblem, titleFileName } from './notes/note-path.js';
export { type LineRange, NOTE_READ_MAX_BYTES, NoteReadError, type NoteText } from './notes/note-reader.js';
export { NotePlaceError } from './notes/note-target.js';
export type { NoteInput, WrittenNote } from './notes/note-writer.js';
export { NotesEngine, type NotesEngineOptions } from './notes/notes-engine.js';
export {
  NOTES_VAULT_OPTIONS,
  openNotesEngine,
  readVaultFlags,
  type VaultFlags,
  type VaultSelection,
} from './notes/vault-options.js';
export { type AgreementGuard, DEFAULT_FUSION, type FusionSettings, type FusionWeights } from './search/fusion.js';
export {
  LEG_DEPTH,
  SEARCH_MODES,
  type SearchHit,
  type SearchMode,
  type SearchOptions,
  type SearchResult,
  searchSnapshot,
} from './search/hybrid-search.js';
export type { Correction, LexicalTier } from './search/lexical-leg.js';
export { loadFromCache, openIndex, SearchIndex, type SearchIndexOptions } from './search/search-index.js';
export {
  checkSearchRequest,
  describeSearchProblem,
  QUERY_MAX_CHARACTERS,
  QUERY_MAX_TERMS,
  SEARCH_DEFAULTS,
  SEARCH_FIELDS,
  type SearchContext,
  type SearchField,
  type SearchRequest,
  type SearchRequestCheck,
  type SearchRequestFailure,
  type SearchRequestProblem,
  TOP_MAX,
  TOP_MIN,
} from './search/search-request.js';
export { IndexSnapshot } from './snapshot/index-snapshot.js';
export { SnapshotSource } from './snapshot/snapshot-source.js';
export { type VaultWatcher, watchVaults } from './walk/vault-watcher.js';
