/** A scan thread that claims each job and never finishes it: the serving thread must stop waiting. */
import { parentPort, workerData } from 'node:worker_threads';
import { JOB_STATE, type ScanJob } from '../../src/vectors/scan-job.js';

parentPort?.on('message', (job: ScanJob) => {
  Atomics.compareExchange(job.control, 0, JOB_STATE.posted, JOB_STATE.running);
});
Atomics.store((workerData as { readonly ready: Int32Array }).ready, 0, 1);
parentPort?.postMessage('ready');
