/**
 * Worker thread entry of the scan thread (docs/retrieval.md#dense-leg): runs
 * each dense scan job posted to it, one at a time, and says once that it is
 * ready (in a shared word, and in a message), so that the serving thread
 * posts jobs only to a thread that will pick them up.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { runScanJob, type ScanJob } from './scan-job.js';

parentPort?.on('message', (job: ScanJob) => runScanJob(job));
// A word the serving thread reads without waiting for its event loop to turn (a search never yields).
const ready = (workerData as { readonly ready: Int32Array }).ready;
Atomics.store(ready, 0, 1);
parentPort?.postMessage('ready');
