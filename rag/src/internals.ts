/**
 * `@notegate/rag/internals`: the parts the repository's benchmarks measure
 * one by one (the store, the vector back-ends, the lexical leg, chunking).
 * No compatibility promise: library users take `@notegate/rag`.
 */

export { chunkNote } from './chunk/chunker.js';
export { chunkerSettingsFor } from './chunk/settings.js';
export { findRepositoryRoot } from './config/repo-root.js';
export { loadPretrained } from './embed/transformers-embedder.js';
export { lexicalIndexText } from './lexical/index-text.js';
export { queryTerms } from './lexical/query-terms.js';
export { lexicalLeg } from './search/lexical-leg.js';
export { COLUMN_WEIGHTS } from './store/fts-column-weights.js';
export { type FileRecord, IndexStore } from './store/index-store.js';
export { loadVectorMatrix } from './store/load-vectors.js';
export { openDatabase } from './store/open-database.js';
export type { LexicalLayout } from './store/schema.js';
export { exactScan, rangesFor, type VectorSearch } from './vectors/vector-scan.js';
export { walkVault } from './walk/walk-vault.js';
