import { terminalJson } from '@notegate/kit';
import { type Command, type CommandLine, EXIT } from '@notegate/kit/cli';
import { loadLocatedConfig } from '../config/config-location.js';
import { indexStatus } from '../status/index-status.js';
import { CONFIG_OPTION, configLocation, type RagCommandDeps } from './rag-command.js';
import { formatStatus, statusJson } from './status-output.js';

const OPTIONS = {
  config: CONFIG_OPTION,
  json: { type: 'boolean', description: 'Print the status as JSON on stdout.' },
} as const;

export function createStatusCommand(deps: RagCommandDeps): Command<typeof OPTIONS> {
  return {
    name: 'notegate-rag status',
    usage: 'notegate-rag status [options]',
    summary:
      'Shows the config in use, the vaults with their files and chunks, the model and whether its files are\n' +
      'present and verified, the full-text layout, the last index run and the files changed since (what the\n' +
      'next index run would read). Reads only; never writes the index.',
    options: OPTIONS,
    run: (line) => runStatus(line, deps),
  };
}

async function runStatus(line: CommandLine<typeof OPTIONS>, deps: RagCommandDeps): Promise<number> {
  const environment = deps.environment();
  const location = configLocation(line.options.config, deps, environment);
  const config = loadLocatedConfig(location, environment.homeDir);
  const status = await indexStatus(config, location, environment.modelCacheDir);
  process.stdout.write(
    line.options.json ? `${terminalJson(statusJson(status), 2)}\n` : formatStatus(status, Date.now()),
  );
  return EXIT.ok;
}
