/**
 * Worker thread entry: checkpoints the index's write-ahead log on a connection of its own, so that
 * copying a large transaction's pages into the database file never holds the event loop of the
 * process that wrote them (docs/retrieval.md#index-runs). One reply per checkpoint; `close` closes
 * the connection and ends the thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { errorMessage } from '@notegate/kit';
import type Database from 'better-sqlite3';
import { openDatabase } from './open-database.js';

let db: Database.Database | undefined;
const file = String(workerData);

parentPort?.on('message', (message: 'checkpoint' | 'close') => {
  if (message === 'close') {
    db?.close();
    db = undefined;
    parentPort?.close();
    return;
  }
  try {
    db ??= openDatabase(file, { reader: true });
    // PASSIVE: copies what no reader still needs, never waits for a lock, never blocks the writer.
    db.pragma('wal_checkpoint(PASSIVE)');
    parentPort?.postMessage({ ok: true });
  } catch (err) {
    parentPort?.postMessage({ ok: false, message: errorMessage(err) });
  }
});
