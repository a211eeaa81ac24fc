import { Worker } from 'node:worker_threads';
import { errorMessage } from '@notegate/kit';

/** Where a writer that does not checkpoint at its commits asks for a checkpoint (docs/retrieval.md#index-runs). */
export interface WalCheckpoints {
  /** Asks for a checkpoint of everything committed so far; returns at once. */
  request(): void;
}

interface Reply {
  readonly ok: boolean;
  readonly message?: string;
}

/**
 * Checkpoints an index's write-ahead log in a worker thread (docs/retrieval.md#index-runs): SQLite's
 * own checkpoint runs inside the commit that crosses its threshold and copies every page written
 * since the last one, about 90 ms on the event loop after a 7 MiB note. Requests made while one
 * runs are served by one more afterwards. The thread starts at the first request and keeps the
 * process alive only while a checkpoint runs.
 */
export class WalCheckpointer implements WalCheckpoints {
  readonly #file: string;
  #worker: Worker | undefined;
  #running = false;
  #due = false;
  #failure: string | undefined;
  #whenIdle: (() => void)[] = [];

  constructor(file: string) {
    this.#file = file;
  }

  request(): void {
    if (this.#running) {
      this.#due = true;
      return;
    }
    this.#run();
  }

  /**
   * Waits for the checkpoints asked for, then stops the thread (its connection closed first, so a
   * writer closing afterwards may be the last connection and checkpoint what is left). Rejects
   * when a checkpoint failed: what it did not copy stays in the log, where readers still find it.
   */
  async close(): Promise<void> {
    if (this.#running) await new Promise<void>((resolve) => this.#whenIdle.push(resolve));
    const worker = this.#worker;
    this.#worker = undefined;
    if (worker) {
      const exited = new Promise((resolve) => worker.once('exit', resolve));
      worker.ref();
      worker.postMessage('close');
      await exited;
    }
    if (this.#failure !== undefined) throw new Error(`checkpointing ${this.#file} failed: ${this.#failure}`);
  }

  #run(): void {
    const worker = this.#start();
    this.#running = true;
    this.#due = false;
    worker.ref();
    worker.postMessage('checkpoint');
  }

  #start(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(new URL('./wal-checkpoint-worker.js', import.meta.url), { workerData: this.#file });
    worker.on('message', (reply: Reply) => this.#settled(reply.ok ? undefined : (reply.message ?? 'no reason given')));
    worker.on('error', (err) => this.#settled(errorMessage(err)));
    worker.on('exit', (code) => {
      if (this.#worker !== worker) return;
      this.#worker = undefined;
      this.#settled(`the checkpoint thread stopped (exit code ${code})`);
    });
    this.#worker = worker;
    return worker;
  }

  #settled(failure: string | undefined): void {
    if (!this.#running) return;
    this.#running = false;
    if (failure !== undefined) this.#failure = failure;
    if (this.#due && this.#worker) {
      this.#run();
      return;
    }
    this.#worker?.unref();
    for (const resolve of this.#whenIdle.splice(0)) resolve();
  }
}
