import { errorMessage } from '@notegate/kit';
import { type Command, type CommandLine, EXIT, packageVersion, UsageError, untilShutdown } from '@notegate/kit/cli';
import { closeServer, listen } from '@notegate/kit/http';
import { parseServerLimits, serverLimitOptions } from '@notegate/kit/server-options';
import type { RagEnvironment } from '../config/environment.js';
import type { RagConfig } from '../config/load-config.js';
import { hasVectors } from '../config/models.js';
import { SharedEmbedder } from '../embed/shared-embedder.js';
import { reportedIndexPath } from '../http/health.js';
import { createSearchServer } from '../http/search-server.js';
import { IndexFollower } from '../indexer/index-follower.js';
import { loadFromCache, SearchIndex } from '../search/search-index.js';
import { describeWordIndex } from '../snapshot/word-index.js';
import { watchVaults } from '../walk/vault-watcher.js';
import { CONFIG_OPTION, configFor, type RagCommandDeps } from './rag-command.js';
import { DEFAULT_HOST, DEFAULT_PORT, serverAddress } from './server-address.js';

const OPTIONS = {
  config: CONFIG_OPTION,
  port: {
    type: 'string',
    valueName: 'PORT',
    description: 'TCP port (0 picks a free one).',
    defaultText: `NOTEGATE_SERVER_PORT, else ${DEFAULT_PORT}`,
  },
  host: {
    type: 'string',
    valueName: 'ADDRESS',
    description: 'Address to bind.',
    defaultText: `NOTEGATE_SERVER_HOST, else ${DEFAULT_HOST}`,
  },
  watch: {
    type: 'boolean',
    description:
      'Follow the vault folders: index changed, new and deleted notes within about a second (one index run at start, then after each change; waits while another index run holds the index).',
  },
  'verbose-health': {
    type: 'boolean',
    description: 'Report the absolute index path in /health (otherwise relative to the repository root).',
  },
  ...serverLimitOptions,
} as const;

export function createServeCommand(deps: RagCommandDeps): Command<typeof OPTIONS> {
  return {
    name: 'notegate-rag serve',
    usage: 'notegate-rag serve [options]',
    summary:
      'Serves hybrid (BM25 + vector, fused), dense, lexical and MMR search over the index: POST /search, GET /health.\n' +
      'Follows the index while `notegate-rag index` updates it. The model is never downloaded here;\n' +
      'with embed_model "none" (a lexical-only index) no model is loaded and searches are lexical.',
    options: OPTIONS,
    run: (line) => runServe(line, deps),
  };
}

async function runServe(line: CommandLine<typeof OPTIONS>, deps: RagCommandDeps): Promise<number> {
  const { options } = line;
  const environment = deps.environment();
  const address = serverAddress(options, environment);
  const limits = parseServerLimits(options);
  const config = configFor(options.config, deps, environment);
  const log = (text: string) => process.stderr.write(`notegate-rag serve: ${text}\n`);
  // With --watch, the index runs embed with the model the searches use: one copy per process.
  const shared =
    options.watch && hasVectors(config.model)
      ? new SharedEmbedder(() => loadFromCache(config.model, environment))
      : undefined;
  const index = new SearchIndex({
    indexPath: config.indexPath,
    model: config.model,
    modelCacheDir: environment.modelCacheDir,
    modelHubUrl: environment.modelHubUrl,
    ...(shared && { loadEmbedder: () => shared.acquire() }),
    onReload: (event) =>
      log(
        'error' in event
          ? `index unavailable: ${event.error}`
          : `index loaded: ${event.chunks} chunks in ${event.durationMs} ms`,
      ),
    onWordIndex: (state) => log(describeWordIndex(state)),
  });
  const version = packageVersion(import.meta.url);
  const server = createSearchServer({
    index,
    indexPath: options['verbose-health'] ? config.indexPath : reportedIndexPath(config.indexPath, config.repoRoot),
    vaults: config.vaults.map((vault) => vault.id),
    bindHost: address.host,
    log,
    version,
    limits,
  });
  const url = await listen(server, address.host, address.port).catch((err: unknown) => {
    throw new UsageError(`--host/--port: cannot listen on ${address.host}:${address.port} (${listenError(err)})`);
  });
  process.stdout.write(`listening on ${url.href}\n`);
  log(`version ${version}`);
  void index.start();
  if (hasVectors(config.model)) {
    void index.modelSettled().then(() => {
      const state = index.modelState;
      log(state.state === 'failed' ? `model unavailable: ${state.reason}` : `model ${config.model.id} ready`);
    });
  } else {
    log('embed_model is none: a lexical-only index, no model loaded');
  }
  const follow = options.watch ? followVaults(config, environment, index, shared, log) : undefined;
  await untilShutdown(async () => {
    await follow?.close();
    await closeServer(server);
    await index.close();
    await shared?.dispose();
  });
  return EXIT.ok;
}

/** --watch: a watcher on the vault folders drives incremental index runs (docs/retrieval.md#following-the-vaults). */
function followVaults(
  config: RagConfig,
  environment: RagEnvironment,
  index: SearchIndex,
  shared: SharedEmbedder | undefined,
  log: (text: string) => void,
): { close(): Promise<void> } {
  const follower = new IndexFollower({
    config,
    modelCacheDir: environment.modelCacheDir,
    modelHubUrl: environment.modelHubUrl,
    ...(shared && { loadEmbedder: () => shared.acquire() }),
    onIndexed: () => index.snapshots.refresh(),
    log,
    createIndex: true,
  });
  const watcher = watchVaults(
    config.vaults,
    () => follower.changed(),
    (vault, err) => log(`watching vault ${vault} failed: ${err.message}`),
  );
  log(`following ${config.vaults.length} vault folder${config.vaults.length === 1 ? '' : 's'}`);
  follower.changed();
  return {
    close: async () => {
      watcher.close();
      await follower.close();
    },
  };
}

function listenError(err: unknown): string {
  return err instanceof Error && 'code' in err && typeof err.code === 'string' ? err.code : errorMessage(err);
}
