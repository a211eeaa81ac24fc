import type { VectorMatrix } from '../store/load-vectors.js';
import type { WordPostings } from './word-postings.js';

/** The rows of a segment's postings: its vector matrix's order, chunk ids and (vault, namespace) groups. */
export type PostingRows = Pick<VectorMatrix, 'chunkIds' | 'partitions'>;

/**
 * One segment's word index as one state of the index sees it
 * (docs/retrieval.md#snapshots): the segment's postings, shared by every state
 * that holds the segment, and which of its rows this state has deleted.
 */
export interface WordSegment {
  readonly postings: WordPostings;
  readonly rows: PostingRows;
  /** 1 for a deleted row; undefined when none is. */
  readonly deleted: Uint8Array | undefined;
  /** Per term, its postings in deleted rows (`deleted-postings.ts`); undefined when no row is deleted. */
  readonly deletedPostings: Uint32Array | undefined;
}
