import { fileURLToPath } from 'node:url';
import { hostEntry, MCP_HOSTS, type McpHost } from '@notegate/kit';
import {
  type Command,
  type CommandLine,
  EXIT,
  operatorLog,
  packageVersion,
  parseChoice,
  UsageError,
  untilShutdown,
} from '@notegate/kit/cli';
import type { RagEnvironment } from '../config/environment.js';
import type { RagConfig } from '../config/load-config.js';
import { hasVectors } from '../config/models.js';
import { serveNotesOverStdio } from '../mcp/stdio-server.js';
import { NotesEngine } from '../notes/notes-engine.js';
import { CONFIG_OPTION, configFor, type RagCommandDeps } from './rag-command.js';

/** The committed entry point of this package, which a host runs (docs/retrieval.md#a-local-mcp-server). */
const BIN = fileURLToPath(new URL('../../../bin/notegate-rag.js', import.meta.url));
/** The name a host lists the server under. */
const SERVER_NAME = 'notes';

const OPTIONS = {
  config: CONFIG_OPTION,
  'allow-write': {
    type: 'string',
    valueName: 'VAULT',
    description: 'Serve notes.write too, writing into this vault of the config.',
    defaultText: 'read-only: notes.search and notes.read',
  },
  'print-config': {
    type: 'string',
    valueName: 'HOST',
    description: `Print the entry for an MCP host's config file instead of serving (${MCP_HOSTS.join(', ')}), with absolute paths.`,
  },
} as const;

export function createMcpCommand(deps: RagCommandDeps): Command<typeof OPTIONS> {
  return {
    name: 'notegate-rag mcp',
    usage: 'notegate-rag mcp [options]',
    summary:
      'A local MCP server over stdio for the notes of the config: notes.search and notes.read, and with\n' +
      '--allow-write VAULT notes.write. No token: stdio is your own process (a shared server is\n' +
      'notegate notes-server). It indexes the vaults at start and follows them while it runs; stdout carries\n' +
      'only the protocol, messages go to stderr. --print-config HOST prints what to paste into the host.',
    options: OPTIONS,
    run: (line) => runMcp(line, deps),
  };
}

async function runMcp(line: CommandLine<typeof OPTIONS>, deps: RagCommandDeps): Promise<number> {
  const { options } = line;
  const environment = deps.environment();
  const config = configFor(options.config, deps, environment);
  const writeVault = options['allow-write'];
  const known = config.vaults.map((vault) => vault.id);
  if (writeVault !== undefined && !known.includes(writeVault)) {
    throw new UsageError(
      `--allow-write: '${writeVault}' is not a vault of ${config.configPath} (vaults: ${known.join(', ')})`,
    );
  }
  const host = options['print-config'];
  if (host !== undefined) {
    printHostEntry(parseChoice('--print-config', host, MCP_HOSTS), config, environment, writeVault);
    return EXIT.ok;
  }
  const log = operatorLog('notegate-rag mcp');
  const engine = await NotesEngine.open({
    config,
    vaultIds: known,
    writeVaultId: writeVault,
    modelCacheDir: environment.modelCacheDir,
    modelHubUrl: environment.modelHubUrl,
    denseScan: environment.denseScan,
    createIndex: true,
    catchUpFirst: false,
    log,
  });
  log(
    `serving ${known.join(', ')} over stdio (${config.configPath}); ${writeVault === undefined ? 'read-only' : `notes.write into ${writeVault}`}`,
  );
  try {
    await serveNotesOverStdio(
      engine,
      { name: 'notegate-rag', version: packageVersion(import.meta.url), log },
      untilShutdown(() => undefined),
    );
  } finally {
    await engine.close();
  }
  return EXIT.ok;
}

/**
 * docs/retrieval.md#a-local-mcp-server: the host runs this Node.js with this package's entry point and
 * the config by absolute path, since it starts the server from a folder of its own and with an
 * environment of its own (the model cache is passed on where the index has vectors).
 */
function printHostEntry(host: McpHost, config: RagConfig, environment: RagEnvironment, writeVault: string | undefined) {
  const { json, where } = hostEntry(host, {
    name: SERVER_NAME,
    command: process.execPath,
    args: [
      BIN,
      'mcp',
      '--config',
      config.configPath,
      ...(writeVault === undefined ? [] : ['--allow-write', writeVault]),
    ],
    ...(hasVectors(config.model) && { env: { NOTEGATE_MODEL_CACHE: environment.modelCacheDir } }),
  });
  process.stdout.write(json);
  process.stderr.write(`${where}\n`);
}
