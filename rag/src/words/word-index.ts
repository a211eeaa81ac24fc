import { Worker } from 'node:worker_threads';
import { errorMessage } from '@notegate/kit';
import { sharedFts5Mirror } from './fts5-mirror.js';
import { MemoryWords } from './memory-words.js';
import type { WordIndexReply, WordIndexRequest } from './word-index-build.js';
import { WordPostings } from './word-postings.js';

export type WordIndexState =
  | { readonly kind: 'building' }
  | { readonly kind: 'ready'; readonly words: MemoryWords; readonly buildMs: number }
  | { readonly kind: 'unavailable'; readonly reason: string };

/** One line for an operator's log: where the lexical leg's word tier is ranked from now on, and why. */
export function describeWordIndex(state: Exclude<WordIndexState, { kind: 'building' }>): string {
  return state.kind === 'ready'
    ? `word index built in ${Math.round(state.buildMs)} ms: lexical ranking in memory`
    : `no word index (${state.reason}): lexical ranking stays in SQLite`;
}

/**
 * The in-memory word index of one vectors generation (docs/retrieval.md#snapshots):
 * built once in a worker thread when the first snapshot of that generation
 * takes it, shared by the later snapshots of the same generation (the same
 * chunks and full-text rows), and dropped with the last of them. Until it is
 * ready, and for good when it cannot be built, the word tier is ranked in
 * SQLite, with the same result.
 */
export class WordIndex {
  private current: WordIndexState;
  private worker: Worker | undefined;
  private users = 0;
  private startedAtMs = 0;
  private readonly done: Promise<void>;
  private markDone: () => void = () => {};

  private constructor(
    private readonly request: WordIndexRequest | undefined,
    private readonly clock: () => number,
    initial: WordIndexState,
  ) {
    this.current = initial;
    this.done = new Promise((resolve) => {
      this.markDone = resolve;
    });
    if (initial.kind !== 'building') this.markDone();
  }

  /** An index to build from the word table (when a snapshot first takes it). */
  static of(request: WordIndexRequest, clock: () => number): WordIndex {
    return new WordIndex(request, clock, { kind: 'building' });
  }

  /** No in-memory index for this generation: SQLite ranks. */
  static unavailable(reason: string): WordIndex {
    return new WordIndex(undefined, Date.now, { kind: 'unavailable', reason });
  }

  get state(): WordIndexState {
    return this.current;
  }

  /** The index once built. */
  get ready(): MemoryWords | undefined {
    return this.current.kind === 'ready' ? this.current.words : undefined;
  }

  /** Resolves once the index is ready or known to be unavailable. */
  settled(): Promise<void> {
    return this.done;
  }

  /** A snapshot takes the index: the first one starts the build. */
  retain(): void {
    this.users += 1;
    if (this.request !== undefined && this.current.kind === 'building' && this.worker === undefined) {
      this.start(this.request);
    }
  }

  /** A snapshot closed: with the last one, a build still running is stopped. */
  release(): void {
    this.users -= 1;
    if (this.users > 0 || this.current.kind !== 'building') return;
    void this.worker?.terminate();
    this.settle({ kind: 'unavailable', reason: 'no snapshot of this generation is open' });
  }

  private start(request: WordIndexRequest): void {
    this.startedAtMs = this.clock();
    const worker = new Worker(new URL('./word-index-worker.js', import.meta.url), { workerData: request });
    // A build never keeps the process alive; close() stops it.
    worker.unref();
    worker.once('message', (reply: WordIndexReply) => this.settle(this.stateOf(request, reply)));
    worker.once('error', (err) => this.settle({ kind: 'unavailable', reason: errorMessage(err) }));
    worker.once('exit', (code) =>
      this.settle({ kind: 'unavailable', reason: `the build stopped (exit code ${code})` }),
    );
    this.worker = worker;
  }

  private stateOf(request: WordIndexRequest, reply: WordIndexReply): WordIndexState {
    if (reply.kind !== 'built') return reply;
    try {
      const words = new MemoryWords(new WordPostings(reply.parts), request.rows, sharedFts5Mirror());
      return { kind: 'ready', words, buildMs: this.clock() - this.startedAtMs };
    } catch (err) {
      return { kind: 'unavailable', reason: errorMessage(err) };
    }
  }

  /** The first outcome wins (a worker that answered also exits). */
  private settle(state: WordIndexState): void {
    if (this.current.kind !== 'building') return;
    this.current = state;
    this.worker = undefined;
    this.markDone();
  }
}
