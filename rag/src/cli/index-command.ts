import { terminalJson } from '@notegate/kit';
import { type Command, type CommandLine, EXIT, operatorLog, UsageError, untilShutdown } from '@notegate/kit/cli';
import type { RagEnvironment } from '../config/environment.js';
import type { RagConfig } from '../config/load-config.js';
import { hasVectors } from '../config/models.js';
import { SharedEmbedder } from '../embed/shared-embedder.js';
import { RagError } from '../errors/rag-error.js';
import { runIndex } from '../indexer/run-index.js';
import type { IndexSummary } from '../indexer/types.js';
import { VaultFollowing } from '../live-index/vault-following.js';
import { loadFromCache } from '../search/search-index.js';
import { formatSummary, summaryJson } from './format-summary.js';
import { createInterruptReport } from './interrupt-report.js';
import { createProgressReporter } from './progress-reporter.js';
import { CONFIG_OPTION, configFor, type RagCommandDeps } from './rag-command.js';

/** A timer that does nothing but keep `--watch` running: the longest delay a timer takes. */
const HOLD_OPEN_MS = 2 ** 31 - 1;
/** 128 + the signal's number, as shells report a process a signal ended. */
const INTERRUPTED_EXIT = { SIGINT: 130, SIGTERM: 143 } as const;

const OPTIONS = {
  config: CONFIG_OPTION,
  vault: {
    type: 'string',
    multiple: true,
    valueName: 'ID',
    description: 'Index only this vault of the config (other vaults stay as they are).',
    defaultText: 'every vault',
  },
  rebuild: {
    type: 'boolean',
    description: 'Drop the index and rebuild it from scratch (needed after changing embed_model).',
  },
  watch: {
    type: 'boolean',
    description:
      'After the run, follow the vault folders and index each change as it happens, without a server (Ctrl-C stops).',
  },
  json: { type: 'boolean', description: 'Print the summary as JSON on stdout.' },
  quiet: { type: 'boolean', description: 'No progress on stderr.' },
  offline: { type: 'boolean', description: 'Never download the model; say which files to place where instead.' },
} as const;

export function createIndexCommand(deps: RagCommandDeps): Command<typeof OPTIONS> {
  return {
    name: 'notegate-rag index',
    usage: 'notegate-rag index [options]',
    summary:
      'Builds or updates the index of every vault in the config: full-text, and vectors from the embedding model.\n' +
      'With embed_model "none" in the config the index is lexical-only: no embeddings, no model download.\n' +
      'Incremental: only changed files are embedded; deleted files are pruned. Exit code 1 when a file failed.\n' +
      'Ctrl-C keeps every file committed so far (exit 130); the next run goes on from there.',
    options: OPTIONS,
    run: (line) => runIndexCommand(line, deps),
  };
}

async function runIndexCommand(line: CommandLine<typeof OPTIONS>, deps: RagCommandDeps): Promise<number> {
  const { options } = line;
  const environment = deps.environment();
  const config = configFor(options.config, deps, environment);
  const known = config.vaults.map((vault) => vault.id);
  if (options.rebuild && options.vault.length > 0) {
    throw new UsageError('--rebuild rebuilds the whole index; it cannot be combined with --vault');
  }
  const unknown = options.vault.find((id) => !known.includes(id));
  if (unknown !== undefined)
    throw new UsageError(`--vault: '${unknown}' is not in the config (allowed: ${known.join(', ')})`);
  const reporter = createProgressReporter(process.stderr, { enabled: !options.quiet });
  const committed = createInterruptReport();
  // docs/retrieval.md#index-runs: every file is its own transaction, and one left open at exit is dropped, so
  // leaving at a signal loses only the file being read, embedded or written; the OS releases the index lock.
  const interrupt = (signal: keyof typeof INTERRUPTED_EXIT) => {
    reporter.finish();
    process.stderr.write(`notegate-rag index: ${committed.describe()}\n`);
    process.exit(INTERRUPTED_EXIT[signal]);
  };
  process.once('SIGINT', interrupt).once('SIGTERM', interrupt);
  let summary: IndexSummary;
  try {
    summary = await runIndex({
      config,
      modelCacheDir: environment.modelCacheDir,
      download: { hubUrl: environment.modelHubUrl, fetch: (url, init) => fetch(url, init), enabled: !options.offline },
      vaultIds: options.vault.length > 0 ? options.vault : undefined,
      rebuild: options.rebuild,
      onProgress: (event) => {
        reporter.onProgress(event);
        committed.onProgress(event);
      },
    });
  } catch (err) {
    // A refused index is fixed by the operator (`--rebuild`), like a bad flag.
    if (err instanceof RagError && (err.code === 'ERR_INDEX_MODEL_MISMATCH' || err.code === 'ERR_INDEX_SCHEMA')) {
      throw new UsageError(err.message);
    }
    throw err;
  } finally {
    reporter.finish();
    process.off('SIGINT', interrupt).off('SIGTERM', interrupt);
  }
  process.stdout.write(options.json ? `${terminalJson(summaryJson(summary), 2)}\n` : formatSummary(summary));
  if (options.watch) await follow(config, environment, options.vault);
  return summary.failed.length > 0 ? EXIT.failure : EXIT.ok;
}

/**
 * `--watch` (docs/retrieval.md#following-the-vaults): the vault folders followed as `serve --watch` follows
 * them, without a server, with the model loaded once for every run; until SIGINT or SIGTERM, after which a
 * run in progress finishes.
 */
async function follow(config: RagConfig, environment: RagEnvironment, vaultIds: readonly string[]): Promise<void> {
  const { modelCacheDir, modelHubUrl } = environment;
  const shared = hasVectors(config.model)
    ? new SharedEmbedder(() => loadFromCache(config.model, { modelCacheDir, modelHubUrl }))
    : undefined;
  const log = operatorLog('notegate-rag index');
  const following = new VaultFollowing({
    config,
    ...(vaultIds.length > 0 && { vaultIds }),
    modelCacheDir,
    modelHubUrl,
    ...(shared && { loadEmbedder: () => shared.acquire() }),
    createIndex: true,
    log,
    onIndexed: () => undefined,
  });
  // The watchers do not hold the process (a server's socket does that for serve); here waiting is the job.
  const holdOpen = setInterval(() => undefined, HOLD_OPEN_MS);
  const stopped = untilShutdown(async () => {
    clearInterval(holdOpen);
    await following.close();
    await shared?.dispose();
  });
  void following.start();
  log('Ctrl-C stops following');
  await stopped;
  log('stopped; the index is up to date as of its last run');
}
