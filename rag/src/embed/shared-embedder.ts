import type { Embedder } from './embedder.js';

/**
 * One loaded model for every user in a process: the searches (query vectors)
 * and the index runs that follow the vaults (passage vectors). Index runs
 * dispose their embedder at the end; a lease's dispose does nothing, so the
 * model stays loaded until the owner disposes it (docs/retrieval.md#following-the-vaults).
 */
export class SharedEmbedder {
  #loaded: Promise<Embedder> | undefined;

  constructor(private readonly load: () => Promise<Embedder>) {}

  /** The model, loaded by the first call; a failed load is tried again by the next call. */
  async acquire(): Promise<Embedder> {
    this.#loaded ??= this.load();
    let embedder: Embedder;
    try {
      embedder = await this.#loaded;
    } catch (err) {
      this.#loaded = undefined;
      throw err;
    }
    return {
      model: embedder.model,
      countTokens: (text) => embedder.countTokens(text),
      embedTexts: (inputs) => embedder.embedTexts(inputs),
      embedQuery: (query) => embedder.embedQuery(query),
      dispose: async () => undefined,
    };
  }

  async dispose(): Promise<void> {
    const loaded = this.#loaded;
    this.#loaded = undefined;
    await loaded?.then(
      (embedder) => embedder.dispose(),
      () => undefined,
    );
  }
}
