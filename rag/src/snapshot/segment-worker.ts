/**
 * Worker thread entry: runs segment jobs (loading the index whole, building a
 * commit's segment, merging segments) off the main thread, so that searches
 * keep being answered meanwhile (docs/retrieval.md#snapshots). Replies carry
 * the request's id; a failure carries the error's code and message.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { errorMessage } from '@notegate/kit';
import { RagError } from '../errors/rag-error.js';
import { Fts5Mirror } from '../words/fts5-mirror.js';
import { runSegmentJob, type SegmentJob, type VectorBuild } from './segment-jobs.js';

let mirror: Fts5Mirror | undefined;
const mirrorOf = () => {
  mirror ??= new Fts5Mirror();
  return mirror;
};

/** Set by the client (`SegmentWorkerOptions.vectors`). */
const vectors = (workerData as { readonly vectors: VectorBuild }).vectors;

parentPort?.on('message', (message: { readonly id: number; readonly job: SegmentJob }) => {
  try {
    parentPort?.postMessage({ id: message.id, reply: runSegmentJob(message.job, mirrorOf, vectors) });
  } catch (err) {
    const code = err instanceof RagError ? err.code : undefined;
    parentPort?.postMessage({ id: message.id, error: { code, message: errorMessage(err) } });
  }
});
