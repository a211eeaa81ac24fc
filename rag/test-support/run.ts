import type { ModelSpec } from '../src/config/models.js';
import { noDownloads } from '../src/embed/download.js';
import type { Embedder } from '../src/embed/embedder.js';
import type { RunIndexOptions } from '../src/indexer/run-index.js';
import type { IndexProgress } from '../src/indexer/types.js';
import { sharedEmbedder, type Workspace } from './fixtures.js';
import { testModelCache } from './test-model/test-model.js';

/** Options for `runIndex` over a workspace: the test models, no network, shared embedder, recorded progress. */
export function indexOptions(
  ws: Workspace,
  extra: Partial<RunIndexOptions> = {},
): RunIndexOptions & { readonly events: IndexProgress[]; readonly loads: ModelSpec[] } {
  const events: IndexProgress[] = [];
  const loads: ModelSpec[] = [];
  return {
    config: ws.config,
    modelCacheDir: testModelCache(),
    download: noDownloads(new URL('http://127.0.0.1:9/')),
    loadEmbedder: (model) => {
      loads.push(model);
      return sharedEmbedder(model.id);
    },
    onProgress: (event) => events.push(event),
    events,
    loads,
    ...extra,
  };
}

/** Wraps an embedder so that any input containing `marker` makes the whole call fail. */
export function poisoned(embedder: Embedder, marker: string): Embedder {
  return {
    ...embedder,
    embedTexts: async (inputs) => {
      if (inputs.some((input) => input.includes(marker))) throw new Error(`model crashed on ${marker}`);
      return embedder.embedTexts(inputs);
    },
  };
}
