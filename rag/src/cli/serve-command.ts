import { errorMessage } from '@notegate/kit';
import {
  type Command,
  type CommandLine,
  EXIT,
  operatorLog,
  packageVersion,
  UsageError,
  untilShutdown,
} from '@notegate/kit/cli';
import { closeServer, listen } from '@notegate/kit/http';
import { parseServerLimits, serverLimitOptions } from '@notegate/kit/server-options';
import { hasVectors } from '../config/models.js';
import { reportedIndexPath } from '../http/health.js';
import { createSearchServer } from '../http/search-server.js';
import { LiveIndex } from '../live-index/live-index.js';
import { describeWordIndex } from '../words/word-index.js';
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
      'Serves hybrid (BM25 + vector, fused), dense, lexical and MMR search over the index: a search page for\n' +
      'people at GET /, and POST /search, GET /filters, GET /health.\n' +
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
  const log = operatorLog('notegate-rag serve');
  // --watch: a watcher on the vault folders drives incremental index runs (docs/retrieval.md#following-the-vaults).
  const live = new LiveIndex({
    config,
    modelCacheDir: environment.modelCacheDir,
    modelHubUrl: environment.modelHubUrl,
    denseScan: environment.denseScan,
    follow: options.watch,
    createIndex: true,
    log,
    onReload: (event) =>
      log(
        'error' in event
          ? `index unavailable: ${event.error}`
          : `index loaded: ${event.chunks} chunks in ${event.durationMs} ms${event.load.kind === 'whole' ? ` (whole: ${event.load.reason})` : ''}`,
      ),
    onWordIndex: (state) => log(describeWordIndex(state)),
  });
  const { index } = live;
  const version = packageVersion(import.meta.url);
  const server = createSearchServer({
    index,
    indexPath: options['verbose-health'] ? config.indexPath : reportedIndexPath(config.indexPath, config.repoRoot),
    vaults: config.vaults.map((vault) => vault.id),
    vaultFolders: new Map(config.vaults.map((vault) => [vault.id, vault.path])),
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
  void live.follow();
  await untilShutdown(async () => {
    await closeServer(server);
    await live.close();
  });
  return EXIT.ok;
}

function listenError(err: unknown): string {
  return err instanceof Error && 'code' in err && typeof err.code === 'string' ? err.code : errorMessage(err);
}
