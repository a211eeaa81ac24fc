import { terminalJson } from '@notegate/kit';
import { type Command, type CommandLine, EXIT, UsageError } from '@notegate/kit/cli';
import { RagError } from '../errors/rag-error.js';
import { runIndex } from '../indexer/run-index.js';
import { formatSummary, summaryJson } from './format-summary.js';
import { createProgressReporter } from './progress-reporter.js';
import { CONFIG_OPTION, configFor, type RagCommandDeps } from './rag-command.js';

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
      'Incremental: only changed files are embedded; deleted files are pruned. Exit code 1 when a file failed.',
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
  try {
    const summary = await runIndex({
      config,
      modelCacheDir: environment.modelCacheDir,
      download: { hubUrl: environment.modelHubUrl, fetch: (url, init) => fetch(url, init), enabled: !options.offline },
      vaultIds: options.vault.length > 0 ? options.vault : undefined,
      rebuild: options.rebuild,
      onProgress: reporter.onProgress,
    });
    reporter.finish();
    process.stdout.write(options.json ? `${terminalJson(summaryJson(summary), 2)}\n` : formatSummary(summary));
    return summary.failed.length > 0 ? EXIT.failure : EXIT.ok;
  } catch (err) {
    reporter.finish();
    // A refused index is fixed by the operator (`--rebuild`), like a bad flag.
    if (err instanceof RagError && (err.code === 'ERR_INDEX_MODEL_MISMATCH' || err.code === 'ERR_INDEX_SCHEMA')) {
      throw new UsageError(err.message);
    }
    throw err;
  }
}
