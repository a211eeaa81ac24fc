import { Worker } from 'node:worker_threads';
import { errorMessage } from '@notegate/kit';
import type { DenseScan } from '../config/environment.js';
import { RagError, type RagErrorCode } from '../errors/rag-error.js';
import { APPROXIMATE_FROM_ROWS } from '../vectors/sign-codes.js';
import type { ReplyTo, SegmentJob, SegmentReply, VectorBuild } from './segment-jobs.js';

interface Pending {
  readonly resolve: (reply: SegmentReply) => void;
  readonly reject: (err: Error) => void;
}

interface WorkerMessage {
  readonly id: number;
  readonly reply?: SegmentReply;
  readonly error?: { readonly code: RagErrorCode | undefined; readonly message: string };
}

/**
 * A thread's young generation: V8 lets it grow to tens of MiB in a thread
 * that allocates as fast as a segment build does, and the building thread
 * lives as long as commits keep coming, so that would stay resident beside
 * the segments (docs/retrieval.md#memory-of-segments). Small young
 * generations cost only more frequent, shorter collections of short-lived
 * objects.
 */
const YOUNG_GENERATION_MB = 4;

/** Runs segment jobs (a worker thread; tests run them in their own thread). */
export interface SegmentJobs {
  run<J extends SegmentJob>(job: J): Promise<ReplyTo<J>>;
}

export interface SegmentWorkerOptions {
  /**
   * Jobs after which the thread is stopped once no job is pending (the next
   * job starts a new one): the arrays a job made or was sent stay reachable
   * from the thread's heap until it collects its garbage, which an idle
   * thread does not do, so the segments a merge replaced would stay in
   * memory (docs/retrieval.md#snapshots).
   */
  readonly stopWhenIdleAfter?: readonly SegmentJob['kind'][];
  /** How segments' vectors are built (default: sign codes from `APPROXIMATE_FROM_ROWS` rows). */
  readonly vectors?: VectorBuild;
}

export const DEFAULT_VECTOR_BUILD: VectorBuild = { approximateFromRows: APPROXIMATE_FROM_ROWS };

/** The segments' vectors for a dense scan setting: `exact` gives no segment sign codes. */
export function vectorBuildFor(scan: DenseScan): VectorBuild {
  return scan === 'exact' ? { approximateFromRows: Number.POSITIVE_INFINITY } : DEFAULT_VECTOR_BUILD;
}

/**
 * A worker thread that runs segment jobs one after the other
 * (docs/retrieval.md#snapshots), started at the first job. It keeps the
 * process alive only while a job is pending; `close()` stops it, failing
 * what is pending.
 */
export class SegmentWorker implements SegmentJobs {
  #worker: Worker | undefined;
  readonly #pending = new Map<number, Pending>();
  #nextId = 0;
  #stopDue = false;

  constructor(private readonly options: SegmentWorkerOptions = {}) {}

  /** Whether a thread is running (stopped when idle after the jobs named in the options). */
  get running(): boolean {
    return this.#worker !== undefined;
  }

  run<J extends SegmentJob>(job: J): Promise<ReplyTo<J>> {
    const worker = this.#start();
    const id = this.#nextId++;
    return new Promise<ReplyTo<J>>((resolve, reject) => {
      const accept = (reply: SegmentReply) => {
        if (reply.kind === job.kind) resolve(reply as ReplyTo<J>);
        else reject(new Error(`a ${job.kind} job got a ${reply.kind} reply`));
      };
      this.#pending.set(id, { resolve: accept, reject });
      if (this.options.stopWhenIdleAfter?.includes(job.kind)) this.#stopDue = true;
      worker.ref();
      worker.postMessage({ id, job });
    });
  }

  /** Stops the thread; pending jobs fail. */
  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    this.#failAll(new Error('the segment worker was closed'));
    await worker?.terminate();
  }

  #start(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(new URL('./segment-worker.js', import.meta.url), {
      resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
      workerData: { vectors: this.options.vectors ?? DEFAULT_VECTOR_BUILD },
    });
    worker.unref();
    worker.on('message', (message: WorkerMessage) => this.#settle(message));
    // A thread stopped when idle (or by close) has no job of its own pending: only the current one's end fails jobs.
    worker.on('error', (err) => {
      if (this.#worker === worker) this.#failAll(new Error(`segment worker failed: ${errorMessage(err)}`));
    });
    worker.on('exit', (code) => {
      if (this.#worker !== worker) return;
      this.#worker = undefined;
      this.#failAll(new Error(`the segment worker stopped (exit code ${code})`));
    });
    this.#worker = worker;
    return worker;
  }

  #settle(message: WorkerMessage): void {
    const pending = this.#pending.get(message.id);
    if (!pending) return;
    this.#pending.delete(message.id);
    if (this.#pending.size === 0) this.#idle();
    if (message.reply) pending.resolve(message.reply);
    else {
      const { code, message: text = 'no reply' } = message.error ?? {};
      pending.reject(code ? new RagError(code, text) : new Error(text));
    }
  }

  #idle(): void {
    const worker = this.#worker;
    if (!this.#stopDue) {
      worker?.unref();
      return;
    }
    this.#stopDue = false;
    this.#worker = undefined;
    void worker?.terminate();
  }

  #failAll(err: Error): void {
    for (const pending of this.#pending.values()) pending.reject(err);
    this.#pending.clear();
  }
}
