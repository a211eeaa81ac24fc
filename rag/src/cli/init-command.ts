import { existsSync } from 'node:fs';
import path from 'node:path';
import { terminalText } from '@notegate/kit';
import { type Command, type CommandLine, EXIT, UsageError } from '@notegate/kit/cli';
import { checkNewVaults, newConfigJson, newVaultFolder } from '../config/config-edit.js';
import { type ConfigLocation, describeLocation, locateNewConfig } from '../config/config-location.js';
import type { RagEnvironment } from '../config/environment.js';
import { homeVariants, resolveRagConfig } from '../config/load-config.js';
import { hasVectors } from '../config/models.js';
import { defaultModelIn } from '../embed/default-model.js';
import { EMBEDDING_RUNTIME, embeddingRuntimeInstalled } from '../embed/embedding-runtime.js';
import { addVectorsLater, writeConfigFile } from './config-file.js';
import { CONFIG_OPTION, type RagCommandDeps } from './rag-command.js';

const OPTIONS = { config: CONFIG_OPTION } as const;

export function createInitCommand(deps: RagCommandDeps): Command<typeof OPTIONS> {
  return {
    name: 'notegate-rag init',
    usage: 'notegate-rag init [DIR...] [options]',
    summary:
      'Writes a config for folders of notes (default: the working directory): one vault per folder, its id\n' +
      'from the folder name, only those folders allowed (the diode policy refuses the personal cloud drive),\n' +
      'the default embedding model when it can run (its files in the model cache, its runtime installed),\n' +
      'else a lexical-only index.\n' +
      'Writes --config, NOTEGATE_CONFIG or else the per-user config, which every notegate-rag command then\n' +
      'finds first (see --config); refuses to replace a config.',
    options: OPTIONS,
    acceptsOperands: true,
    run: (line) => runInit(line, deps),
  };
}

async function runInit(line: CommandLine<typeof OPTIONS>, deps: RagCommandDeps): Promise<number> {
  const environment = deps.environment();
  const cwd = deps.cwd ?? process.cwd();
  const location = locateNewConfig(line.options.config, cwd, environment);
  if (existsSync(location.file)) {
    throw new UsageError(
      `a config exists at ${describeLocation(location)}: add a folder to it with 'notegate-rag add DIR', ` +
        'or write another with --config PATH',
    );
  }
  const homeDirs = homeVariants(environment.homeDir);
  const dirs = line.operands.length > 0 ? line.operands : [cwd];
  const vaults = dirs.map((dir) => newVaultFolder(dir, cwd, homeDirs));
  checkNewVaults(vaults);
  const model = defaultModelIn(environment.modelCacheDir);
  const json = newConfigJson(vaults, model.id, indexPathFor(location, environment));
  const config = resolveRagConfig(json, location.file, environment.homeDir);
  await writeConfigFile(location.file, json);
  const lines = [
    `wrote ${describeLocation(location)}`,
    ...config.vaults.map((vault) => `  vault ${vault.id}: ${vault.path}`),
    `  index: ${config.indexPath}`,
    hasVectors(model)
      ? `  model: ${model.id} (its files are in the model cache ${environment.modelCacheDir}): hybrid search`
      : `  model: none, a lexical-only index (${whyNoModel(environment.modelCacheDir)}). ${addVectorsLater(location.file)}`,
    "next: 'notegate-rag index' builds the index; then 'notegate-rag search WORDS', or 'notegate-rag mcp --print-config claude' for an MCP host",
  ];
  // Folder names are anyone's who made them (a cloned repository): shown with their controls as escapes.
  process.stdout.write(`${lines.map((text) => terminalText(text)).join('\n')}\n`);
  return EXIT.ok;
}

/** Why a new index gets no model (docs/retrieval.md#a-folder-in-one-command): the runtime first, as it is the larger step. */
function whyNoModel(modelCacheDir: string): string {
  return embeddingRuntimeInstalled()
    ? `no model in the cache ${modelCacheDir}`
    : `the package ${EMBEDDING_RUNTIME}, which runs models, is not installed (docs/install.md#vectors)`;
}

/**
 * docs/retrieval.md#where-the-config-lives: the per-user config's index goes to the per-user data folder,
 * beside the model cache; any other config's next to it, in a hidden folder named after the file.
 */
function indexPathFor(location: ConfigLocation, environment: RagEnvironment): string {
  if (location.source === 'user') return path.join(environment.userDataDir, 'index.sqlite');
  const stem = path.basename(location.file, path.extname(location.file));
  return path.join(path.dirname(location.file), '.notegate', `${stem}.sqlite`);
}
