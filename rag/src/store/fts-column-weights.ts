/**
 * BM25 column weights of the full-text ranking, in the FTS table's column
 * order (docs/retrieval.md#lexical-leg: title and heading get their own, heavier,
 * columns). Chosen on SciFact train queries (bench/rag/lexical-quality.ts).
 */
export const COLUMN_WEIGHTS = { title: 3, heading: 2, body: 1 } as const;
