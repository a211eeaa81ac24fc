import { terminalText } from '@notegate/kit';
import { type Command, type CommandLine, EXIT, UsageError } from '@notegate/kit/cli';
import { newVaultFolder, vaultIdProblem, withVault } from '../config/config-edit.js';
import { readLocatedConfig } from '../config/config-location.js';
import { homeVariants, resolveRagConfig } from '../config/load-config.js';
import { writeConfigFile } from './config-file.js';
import { CONFIG_OPTION, configLocation, type RagCommandDeps } from './rag-command.js';

const OPTIONS = {
  config: CONFIG_OPTION,
  id: { type: 'string', valueName: 'ID', description: 'The vault id.', defaultText: 'from the folder name' },
} as const;

export function createAddCommand(deps: RagCommandDeps): Command<typeof OPTIONS> {
  return {
    name: 'notegate-rag add',
    usage: 'notegate-rag add DIR [--id ID] [options]',
    summary:
      'Adds a folder of notes to the config as a vault (its id from the folder name unless --id says), and to\n' +
      'allowed_roots unless a root covers it. The diode policy applies; nothing is written on any problem.\n' +
      'The next index run indexes it.',
    options: OPTIONS,
    acceptsOperands: true,
    run: (line) => runAdd(line, deps),
  };
}

async function runAdd(line: CommandLine<typeof OPTIONS>, deps: RagCommandDeps): Promise<number> {
  const [dir, ...extra] = line.operands;
  if (dir === undefined || extra.length > 0) throw new UsageError('DIR: give exactly one folder to add');
  const idProblem = line.options.id === undefined ? undefined : vaultIdProblem(line.options.id);
  if (idProblem !== undefined) throw new UsageError(`--id: ${idProblem}`);
  const environment = deps.environment();
  const location = configLocation(line.options.config, deps, environment);
  const { file } = location;
  const current = readLocatedConfig(location);
  const config = resolveRagConfig(current, file, environment.homeDir);
  const vault = newVaultFolder(dir, deps.cwd ?? process.cwd(), homeVariants(environment.homeDir), line.options.id);
  const json = withVault(current, vault, config);
  resolveRagConfig(json, file, environment.homeDir);
  await writeConfigFile(file, json);
  process.stdout.write(
    `${terminalText(`added vault ${vault.id}: ${vault.absolute} to ${file}`)}\nnext: 'notegate-rag index' indexes it\n`,
  );
  return EXIT.ok;
}
