/**
 * Worker thread entry: builds one generation's word index off the main
 * thread (docs/retrieval.md#snapshots), so that searches keep being answered
 * (in SQLite) while it reads the word table, and hands the arrays over.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { errorMessage } from '@notegate/kit';
import { Fts5Mirror } from './fts5-mirror.js';
import { buildWordIndex, transferablesOf, type WordIndexReply, type WordIndexRequest } from './word-index-build.js';

function build(): WordIndexReply {
  try {
    const mirror = new Fts5Mirror();
    try {
      return buildWordIndex(workerData as WordIndexRequest, mirror);
    } finally {
      mirror.close();
    }
  } catch (err) {
    return { kind: 'unavailable', reason: errorMessage(err) };
  }
}

const reply = build();
parentPort?.postMessage(reply, transferablesOf(reply));
