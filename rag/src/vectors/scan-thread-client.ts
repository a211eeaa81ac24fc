import { Worker } from 'node:worker_threads';
import { JOB_STATE, jobBuffers, resultsOf, type ScanJob, type ScanPart } from './scan-job.js';
import type { ScoredRow } from './top-k.js';

/**
 * Ours: how long the serving thread waits for a scan the thread has started
 * (a scan takes milliseconds) before it gives up on the thread for good and
 * scans on its own.
 */
const CLAIMED_SCAN_TIMEOUT_MS = 2_000;

/** The thread's young generation: it allocates little, and a small one is collected often, freeing what jobs were sent. */
const YOUNG_GENERATION_MB = 2;

export interface ScanThreadOptions {
  /** The thread's entry (tests: one that misbehaves); default `scan-thread.js`. */
  readonly entry?: URL;
  readonly claimedScanTimeoutMs?: number;
}

/** A scan posted to the thread: `take()` waits for its hits, or says to scan on the serving thread. */
export interface PostedScan {
  /** Per part its hits; undefined when the serving thread must scan them itself (taken back before the thread began, or failed). */
  take(): ScoredRow[][] | undefined;
}

/** A running thread, its word that says it takes jobs, and whether it said so before it ended. */
interface Running {
  readonly worker: Worker;
  readonly ready: Int32Array;
  readonly readiness: Promise<boolean>;
}

/**
 * A worker thread that runs the approximate dense scans of a hybrid search's
 * large segments while the serving thread ranks its lexical leg
 * (docs/retrieval.md#dense-leg). A search waits for no thread: until the
 * thread says it is ready, or once it failed, nothing is posted; a scan the
 * thread has not begun when the serving thread needs it is taken back and
 * run there. The thread is stopped when a segment it was sent leaves the
 * index (`follow`), so that it holds no segment the index let go of, and
 * another is started.
 */
export class ScanThread {
  #running: Running | undefined;
  /** Set when a thread failed or stalled, or on close: the serving thread scans on its own from then on. */
  #failed = false;
  /** The code memories of the segments the running thread was sent. */
  readonly #sent = new Set<WebAssembly.Memory>();
  #scannedThere = 0;
  #takenBack = 0;

  constructor(private readonly options: ScanThreadOptions = {}) {}

  /** Scans run by the thread, and scans posted to it that the serving thread ran. */
  get counts(): { readonly scannedThere: number; readonly takenBack: number } {
    return { scannedThere: this.#scannedThere, takenBack: this.#takenBack };
  }

  /** Resolves once a thread is ready for scans (starting one): true, or false when none can be. */
  async ready(): Promise<boolean> {
    const running = this.#start();
    if (running === undefined) return false;
    // The thread keeps the process alive only while someone waits for it.
    running.worker.ref();
    try {
      return await running.readiness;
    } finally {
      running.worker.unref();
    }
  }

  /** Posts the scan of `parts` to a thread that is ready (starting one if none runs); undefined: scan them here. */
  post(parts: readonly ScanPart[], query: Float32Array, k: number): PostedScan | undefined {
    if (parts.length === 0) return undefined;
    const running = this.#start();
    if (running === undefined || Atomics.load(running.ready, 0) !== 1) return undefined;
    for (const part of parts) this.#sent.add(part.codes.memory);
    // The query is copied alone (a view would take its whole buffer along).
    const job: ScanJob = { ...jobBuffers(parts.length, k), query: query.slice(), k, parts };
    running.worker.postMessage(job);
    return { take: () => this.#take(job) };
  }

  /**
   * Follows the code memories of the index's large segments: stops the thread
   * when it was sent a segment that is not among them (one the index let go
   * of), and starts one when there are any, so that it is ready by the next
   * search.
   */
  follow(memories: ReadonlySet<WebAssembly.Memory>): void {
    for (const memory of this.#sent) {
      if (!memories.has(memory)) {
        this.#stop();
        break;
      }
    }
    if (memories.size > 0) this.#start();
  }

  async close(): Promise<void> {
    const worker = this.#running?.worker;
    this.#failed = true;
    this.#stop();
    await worker?.terminate();
  }

  #take(job: ScanJob): ScoredRow[][] | undefined {
    const { control } = job;
    if (Atomics.compareExchange(control, 0, JOB_STATE.posted, JOB_STATE.takenBack) === JOB_STATE.posted) {
      this.#takenBack += 1;
      return undefined;
    }
    const timeoutMs = this.options.claimedScanTimeoutMs ?? CLAIMED_SCAN_TIMEOUT_MS;
    if (Atomics.wait(control, 0, JOB_STATE.running, timeoutMs) === 'timed-out') {
      // The stalled thread's lane of the code memories may still be written: no other thread is started.
      this.#fail();
      return undefined;
    }
    if (Atomics.load(control, 0) !== JOB_STATE.done) return undefined;
    this.#scannedThere += 1;
    return resultsOf(job);
  }

  #start(): Running | undefined {
    if (this.#failed) return undefined;
    if (this.#running) return this.#running;
    const ready = new Int32Array(new SharedArrayBuffer(4));
    const worker = new Worker(this.options.entry ?? new URL('./scan-thread.js', import.meta.url), {
      resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
      workerData: { ready },
    });
    worker.unref();
    const readiness = new Promise<boolean>((resolve) => {
      worker.on('message', (message: unknown) => {
        if (message === 'ready') resolve(true);
      });
      // A thread that fails, or ends other than by `#stop`, is not replaced: the serving thread scans on its own.
      worker.on('error', () => {
        if (this.#running?.worker === worker) this.#fail();
      });
      worker.on('exit', () => {
        if (this.#running?.worker === worker) this.#fail();
        resolve(false);
      });
    });
    this.#running = { worker, ready, readiness };
    return this.#running;
  }

  /** Gives up on threads: the serving thread scans on its own from now on. */
  #fail(): void {
    this.#failed = true;
    this.#stop();
  }

  #stop(): void {
    const worker = this.#running?.worker;
    this.#running = undefined;
    this.#sent.clear();
    void worker?.terminate();
  }
}
