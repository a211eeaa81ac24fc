/** A scan thread that says it is ready and never takes a job: every scan posted to it is taken back. */
import { parentPort, workerData } from 'node:worker_threads';

parentPort?.on('message', () => undefined);
Atomics.store((workerData as { readonly ready: Int32Array }).ready, 0, 1);
parentPort?.postMessage('ready');
