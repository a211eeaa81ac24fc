/**
 * `@notegate/rag/internals`: the parts the repository's benchmarks measure
 * one by one (the store, the vector back-ends, chunking).
 * No compatibility promise: library users take `@notegate/rag`.
 */

export { chunkNote } from './chunk/chunker.js';
export { chunkerSettingsFor } from './chunk/settings.js';
export { RATE_WINDOW_MS, RateEstimate, RemainingTime, WARM_UP_MS } from './cli/rate-estimate.js';
export { findRepositoryRoot } from './config/repo-root.js';
export { loadPretrained } from './embed/transformers-embedder.js';
export { readZipEntries, readZipEntry } from './embed/zip-entries.js';
export { type FileRecord, IndexStore, type StoredChunk } from './store/index-store.js';
export { loadVectorMatrix } from './store/load-vectors.js';
export { openDatabase } from './store/open-database.js';
export { Int8VectorSearch, quantizeMatrix } from './vectors/int8-scan.js';
export { SignCodeSearch, signCodesOf } from './vectors/sign-codes.js';
export { exactScan, rangesFor, type VectorSearch } from './vectors/vector-scan.js';
export { walkVault } from './walk/walk-vault.js';
