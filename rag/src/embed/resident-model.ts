import { errorMessage } from '@notegate/kit';
import { RagError } from '../errors/rag-error.js';
import type { Embedder } from './embedder.js';

export type ResidentModelState =
  | { readonly state: 'loading' }
  | { readonly state: 'ready' }
  | { readonly state: 'failed'; readonly reason: string };

/**
 * The search server's model: loaded once, from `start()` on, in the
 * background so that /health can answer (and say `loading`) meanwhile, then
 * kept resident (docs/retrieval.md#serving). A query that arrives while it
 * loads waits for it. Nothing loads before `start()`, so a server that cannot
 * bind its port exits at once instead of waiting for a model it will not use.
 */
export class ResidentModel {
  private status: ResidentModelState = { state: 'loading' };
  private started = false;
  private begin: () => void = () => undefined;
  private readonly loaded: Promise<Embedder | undefined>;

  constructor(load: () => Promise<Embedder>) {
    const startSignal = new Promise<void>((resolve) => {
      this.begin = resolve;
    });
    this.loaded = startSignal.then(load).then(
      (embedder) => {
        this.status = { state: 'ready' };
        return embedder;
      },
      (err: unknown) => {
        this.status = { state: 'failed', reason: errorMessage(err) };
        return undefined;
      },
    );
  }

  /** Starts loading (once). */
  start(): void {
    this.started = true;
    this.begin();
  }

  get state(): ResidentModelState {
    return this.status;
  }

  /** Resolves once loading has finished, either way. */
  async settled(): Promise<void> {
    await this.loaded;
  }

  /** The query's vector (with the model's query prefix); throws ERR_MODEL_UNAVAILABLE when the model failed to load. */
  async embedQuery(query: string): Promise<Float32Array> {
    const embedder = await this.loaded;
    if (!embedder) {
      throw new RagError(
        'ERR_MODEL_UNAVAILABLE',
        this.status.state === 'failed' ? this.status.reason : 'model not loaded',
      );
    }
    return embedder.embedQuery(query);
  }

  /** Releases the model; one still loading is released once it has loaded, without waiting for it here. */
  async dispose(): Promise<void> {
    if (!this.started) return;
    const release = this.loaded.then((embedder) => embedder?.dispose());
    if (this.status.state !== 'loading') await release;
    // Nobody waits for a release after the fact: its failure must not become an unhandled rejection.
    else release.catch(() => undefined);
  }
}
