import { Worker } from 'node:worker_threads';
import { errorMessage } from '@notegate/kit';
import { RagError, type RagErrorCode } from '../errors/rag-error.js';
import type { ReplyTo, SegmentJob, SegmentReply } from './segment-jobs.js';

interface Pending {
  readonly resolve: (reply: SegmentReply) => void;
  readonly reject: (err: Error) => void;
}

interface WorkerMessage {
  readonly id: number;
  readonly reply?: SegmentReply;
  readonly error?: { readonly code: RagErrorCode | undefined; readonly message: string };
}

/** Runs segment jobs (a worker thread; tests run them in their own thread). */
export interface SegmentJobs {
  run<J extends SegmentJob>(job: J): Promise<ReplyTo<J>>;
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

  run<J extends SegmentJob>(job: J): Promise<ReplyTo<J>> {
    const worker = this.#start();
    const id = this.#nextId++;
    return new Promise<ReplyTo<J>>((resolve, reject) => {
      const accept = (reply: SegmentReply) => {
        if (reply.kind === job.kind) resolve(reply as ReplyTo<J>);
        else reject(new Error(`a ${job.kind} job got a ${reply.kind} reply`));
      };
      this.#pending.set(id, { resolve: accept, reject });
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
    const worker = new Worker(new URL('./segment-worker.js', import.meta.url));
    worker.unref();
    worker.on('message', (message: WorkerMessage) => this.#settle(message));
    worker.on('error', (err) => this.#failAll(new Error(`segment worker failed: ${errorMessage(err)}`)));
    worker.on('exit', (code) => {
      if (this.#worker === worker) this.#worker = undefined;
      this.#failAll(new Error(`the segment worker stopped (exit code ${code})`));
    });
    this.#worker = worker;
    return worker;
  }

  #settle(message: WorkerMessage): void {
    const pending = this.#pending.get(message.id);
    if (!pending) return;
    this.#pending.delete(message.id);
    if (this.#pending.size === 0) this.#worker?.unref();
    if (message.reply) pending.resolve(message.reply);
    else {
      const { code, message: text = 'no reply' } = message.error ?? {};
      pending.reject(code ? new RagError(code, text) : new Error(text));
    }
  }

  #failAll(err: Error): void {
    for (const pending of this.#pending.values()) pending.reject(err);
    this.#pending.clear();
  }
}
