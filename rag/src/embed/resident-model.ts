import { RagError } from '../errors/rag-error.js';
import type { Embedder } from './embedder.js';

export type ResidentModelState =
  | { readonly state: 'loading' }
  | { readonly state: 'ready' }
  | { readonly state: 'failed'; readonly reason: string };

/**
 * The search server's model: loaded once at start, in the background so that
 * /health can answer (and say `loading`) meanwhile, then kept resident
 * (rag-lessons.md §19). A query that arrives while it loads waits for it.
 */
export class ResidentModel {
  private status: ResidentModelState = { state: 'loading' };
  private readonly loaded: Promise<Embedder | undefined>;

  constructor(load: () => Promise<Embedder>) {
    this.loaded = load().then(
      (embedder) => {
        this.status = { state: 'ready' };
        return embedder;
      },
      (err: unknown) => {
        this.status = { state: 'failed', reason: err instanceof Error ? err.message : String(err) };
        return undefined;
      },
    );
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

  async dispose(): Promise<void> {
    await (await this.loaded)?.dispose();
  }
}
