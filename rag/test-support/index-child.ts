/**
 * A real indexer process for the crash and concurrency tests.
 * argv: <config> <home> <model cache> [--gate]
 * Prints `committed <path>` after each file's transaction, `waiting` when
 * gated (the lock is held, nothing embedded yet: it goes on after a line on
 * stdin), and `done <summary JSON>` at the end.
 */
import { createInterface } from 'node:readline';
import { loadRagConfig } from '../src/config/load-config.js';
import { noDownloads } from '../src/embed/download.js';
import { loadTransformersEmbedder } from '../src/embed/transformers-embedder.js';
import { runIndex } from '../src/indexer/run-index.js';

const [configPath = '', home = '', cache = '', flag] = process.argv.slice(2);
const gated = flag === '--gate';
const stdinLines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();

try {
  const summary = await runIndex({
    config: loadRagConfig(configPath, home),
    modelCacheDir: cache,
    download: noDownloads(new URL('http://127.0.0.1:9/')),
    // One file per window: each file is committed as soon as it is embedded.
    windowChunks: 1,
    loadEmbedder: async (model, dir) => {
      if (gated) {
        process.stdout.write('waiting\n');
        await stdinLines.next();
      }
      return loadTransformersEmbedder(model, dir);
    },
    onProgress: (event) => {
      if (event.kind === 'file-done' && (event.outcome === 'new' || event.outcome === 'updated')) {
        process.stdout.write(`committed ${event.path}\n`);
      }
    },
  });
  process.stdout.write(`done ${JSON.stringify(summary)}\n`);
  process.exit(0);
} catch (err) {
  process.stdout.write(`error ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
