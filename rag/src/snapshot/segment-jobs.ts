import type { ModelSpec } from '../config/models.js';
import { type LogPosition, readLogPosition } from '../store/change-log.js';
import { assertIndexMatches } from '../store/index-meta.js';
import { type ChunkText, loadVectorMatrix, type VectorMatrix } from '../store/load-vectors.js';
import { openDatabase } from '../store/open-database.js';
import type { LexicalLayout } from '../store/schema.js';
import { wordTableColumns } from '../store/word-table-text.js';
import { gatherInt8Rows, quantizeMatrix } from '../vectors/int8-scan.js';
import { mergeMatrices, planRowMerge } from '../vectors/row-merge.js';
import { signCodesOf } from '../vectors/sign-codes.js';
import { countDeletedPostings } from '../words/deleted-postings.js';
import type { Fts5Mirror } from '../words/fts5-mirror.js';
import type { Fts5Totals } from '../words/fts5-totals.js';
import { mergePostings } from '../words/merge-postings.js';
import { postingsFromTokens, type RowTokens } from '../words/token-postings.js';
import type { WordIndexState } from '../words/word-index.js';
import { buildWordIndex, prepareWordVocabulary } from '../words/word-index-build.js';
import { WordPostings, type WordPostingsParts } from '../words/word-postings.js';
import { idOrderOf, type SegmentParts } from './segment.js';

/**
 * The work a segment worker does off the main thread (docs/retrieval.md#snapshots),
 * as plain functions of plain data: what crosses between threads is data in
 * shared memory and small lists.
 */
export type SegmentJob = BaseJob | DeltaJob | DeletedPostingsJob | MergeJob;

/** Load the index whole, in one read transaction of the worker's own connection. */
export interface BaseJob {
  readonly kind: 'base';
  readonly file: string;
  readonly model: ModelSpec;
  readonly words: boolean;
}

export interface BaseBuilt {
  readonly kind: 'base';
  /** The state read. */
  readonly position: LogPosition;
  readonly parts: SegmentParts;
  /** FTS5's totals in that state (for the word tier in memory). */
  readonly totals: Fts5Totals | undefined;
  /** How the word index ended; undefined when it was not asked for. */
  readonly wordIndex: WordIndexState | undefined;
}

/** A segment of a commit's new chunks (read by the caller), and the tokens of the chunks it removed. */
export interface DeltaJob {
  readonly kind: 'delta';
  readonly layout: LexicalLayout;
  readonly matrix: VectorMatrix;
  /** The new chunks' texts, in the matrix's row order; undefined when the word tier is not in memory. */
  readonly texts: readonly ChunkText[] | undefined;
  /** The removed chunks' texts (their earlier state), whose tokens come back. */
  readonly removed: readonly ChunkText[] | undefined;
}

export interface DeltaBuilt {
  readonly kind: 'delta';
  readonly parts: SegmentParts;
  readonly removedTokens: readonly RowTokens[] | undefined;
}

/** Count the postings in deleted rows by walking them (when the deleted rows' tokens are not known). */
export interface DeletedPostingsJob {
  readonly kind: 'deleted-postings';
  readonly words: WordPostingsParts;
  readonly deleted: Uint8Array;
}

export interface DeletedPostingsCounted {
  readonly kind: 'deleted-postings';
  readonly counts: Uint32Array;
}

/** Merge segments into one, leaving out their deleted rows. */
export interface MergeJob {
  readonly kind: 'merge';
  readonly sources: readonly { readonly parts: SegmentParts; readonly deleted: Uint8Array | undefined }[];
}

export interface MergeBuilt {
  readonly kind: 'merge';
  readonly parts: SegmentParts;
  /** Per source: each row's merged row, or -1 (deleted when the merge began). */
  readonly mergedRowOf: readonly Int32Array[];
  /** Per source: each term's merged term (undefined without postings). */
  readonly termMaps: readonly Uint32Array[] | undefined;
}

export type SegmentReply = BaseBuilt | DeltaBuilt | DeletedPostingsCounted | MergeBuilt;
export type ReplyTo<J extends SegmentJob> = Extract<SegmentReply, { kind: J['kind'] }>;

/**
 * How a worker builds segments' vectors (docs/retrieval.md#dense-leg): a
 * segment of at least `approximateFromRows` rows gets sign codes for the
 * approximate scan, a smaller one int8 rows for the exact one (Infinity: every
 * segment exact).
 */
export interface VectorBuild {
  readonly approximateFromRows: number;
}

export function runSegmentJob(job: SegmentJob, mirror: () => Fts5Mirror, vectors: VectorBuild): SegmentReply {
  switch (job.kind) {
    case 'base':
      return buildBase(job, mirror, vectors);
    case 'delta':
      return buildDelta(job, mirror, vectors);
    case 'deleted-postings':
      return { kind: 'deleted-postings', counts: countDeletedPostings(new WordPostings(job.words), job.deleted) };
    case 'merge':
      return mergeSegments(job, vectors);
  }
}

/**
 * The whole index as one segment: vectors, their int8 copy, and the word
 * table's postings (checked against SQLite before use), all read in one
 * read transaction, so that they are of one state, which `position` names.
 */
function buildBase(job: BaseJob, mirror: () => Fts5Mirror, vectors: VectorBuild): BaseBuilt {
  const startedAtMs = performance.now();
  const db = openDatabase(job.file, { reader: true });
  try {
    if (job.words) prepareWordVocabulary(db);
    db.exec('BEGIN');
    const meta = assertIndexMatches(db, job.file, job.model, "run 'notegate-rag index --rebuild'");
    const position = readLogPosition(db);
    const matrix = loadVectorMatrix(db, meta.dimension);
    const built = job.words ? buildWordIndex(db, matrix, mirror()) : undefined;
    const words = built?.kind === 'built' ? built : undefined;
    const wordIndex: WordIndexState | undefined =
      built === undefined
        ? undefined
        : built.kind === 'built'
          ? { kind: 'ready', buildMs: performance.now() - startedAtMs }
          : built;
    return {
      kind: 'base',
      position,
      parts: partsOf(matrix, vectorsOf(matrix, vectors), words?.postings),
      totals: words?.totals,
      wordIndex,
    };
  } finally {
    db.close();
  }
}

function buildDelta(job: DeltaJob, mirror: () => Fts5Mirror, vectors: VectorBuild): DeltaBuilt {
  const tokensOf = (texts: readonly ChunkText[]) => rowTokens(mirror(), job.layout, texts);
  const words = job.texts ? postingsFromTokens(tokensOf(job.texts)) : undefined;
  return {
    kind: 'delta',
    parts: partsOf(job.matrix, vectorsOf(job.matrix, vectors), words),
    removedTokens: job.removed ? tokensOf(job.removed) : undefined,
  };
}

function mergeSegments(job: MergeJob, vectors: VectorBuild): MergeBuilt {
  const { sources } = job;
  const plan = planRowMerge(sources.map((source) => ({ rows: source.parts.matrix, deleted: source.deleted })));
  const matrices = sources.map((source) => source.parts.matrix);
  const matrix = mergeMatrices(matrices, plan);
  // Int8 rows are per row and copied as they are; sign codes are about the segment's mean, so made anew.
  const int8Sources = sources.flatMap((source) => source.parts.int8 ?? []);
  const gathered =
    int8Sources.length === sources.length && matrix.dimension > 0 && matrix.count < vectors.approximateFromRows
      ? { int8: gatherInt8Rows(int8Sources, matrix.dimension, plan.sourceOf, plan.rowOf), codes: undefined }
      : undefined;
  const wordSources = sources.flatMap((source) => (source.parts.words ? [new WordPostings(source.parts.words)] : []));
  const words = wordSources.length === sources.length ? mergePostings(wordSources, plan) : undefined;
  return {
    kind: 'merge',
    parts: partsOf(matrix, gathered ?? vectorsOf(matrix, vectors), words?.postings),
    mergedRowOf: plan.mergedRowOf,
    termMaps: words?.termMaps,
  };
}

/** FTS5's tokens of each chunk's columns, as the word table was given them. */
function rowTokens(mirror: Fts5Mirror, layout: LexicalLayout, texts: readonly ChunkText[]): RowTokens[] {
  const columns = texts.map((text) => wordTableColumns(layout, text));
  const tokens = mirror.tokenize(columns.flat());
  let next = 0;
  return columns.map((row) => row.map(() => tokens[next++] ?? []));
}

type SegmentVectors = Pick<SegmentParts, 'int8' | 'codes'>;

/**
 * Sign codes for a large segment, int8 rows for the others, where the kernels
 * can run (nothing for an index without vectors, nor without WebAssembly: the
 * plain exact scan then reads the matrix).
 */
function vectorsOf(matrix: VectorMatrix, vectors: VectorBuild): SegmentVectors {
  if (matrix.dimension === 0) return { int8: undefined, codes: undefined };
  try {
    if (matrix.count >= vectors.approximateFromRows) return { int8: undefined, codes: signCodesOf(matrix) };
    return { int8: quantizeMatrix(matrix), codes: undefined };
  } catch {
    return { int8: undefined, codes: undefined };
  }
}

function partsOf(matrix: VectorMatrix, vectors: SegmentVectors, words: WordPostings | undefined): SegmentParts {
  const wordParts = words && {
    terms: words.terms,
    offsets: words.offsets,
    rows: words.rows,
    frequencies: words.frequencies,
    lengths: words.lengths,
  };
  return { matrix, ...vectors, words: wordParts, idOrder: idOrderOf(matrix.chunkIds) };
}
