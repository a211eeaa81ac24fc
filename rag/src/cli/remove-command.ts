import path from 'node:path';
import { terminalText } from '@notegate/kit';
import { type Command, type CommandLine, EXIT, UsageError } from '@notegate/kit/cli';
import { withoutVault } from '../config/config-edit.js';
import { readLocatedConfig } from '../config/config-location.js';
import { findRepositoryRoot } from '../config/repo-root.js';
import { writeConfigFile } from './config-file.js';
import { CONFIG_OPTION, configLocation, type RagCommandDeps } from './rag-command.js';

const OPTIONS = { config: CONFIG_OPTION } as const;

export function createRemoveCommand(deps: RagCommandDeps): Command<typeof OPTIONS> {
  return {
    name: 'notegate-rag remove',
    usage: 'notegate-rag remove ID [options]',
    summary:
      'Removes the vault ID from the config (also when its folder is gone), and its folder from allowed_roots\n' +
      'unless another vault lies under it. The folder itself is not touched; the next index run drops its notes\n' +
      'from the index.',
    options: OPTIONS,
    acceptsOperands: true,
    run: (line) => runRemove(line, deps),
  };
}

async function runRemove(line: CommandLine<typeof OPTIONS>, deps: RagCommandDeps): Promise<number> {
  const [id, ...extra] = line.operands;
  if (id === undefined || extra.length > 0) throw new UsageError('ID: give exactly one vault id to remove');
  const location = configLocation(line.options.config, deps, deps.environment());
  const { file } = location;
  const json = withoutVault(readLocatedConfig(location), id, file, findRepositoryRoot(path.dirname(file)));
  await writeConfigFile(file, json);
  process.stdout.write(
    `${terminalText(`removed vault ${id} from ${file}`)}\nnext: 'notegate-rag index' drops its notes from the index\n`,
  );
  return EXIT.ok;
}
