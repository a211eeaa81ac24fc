import type { CommandEntry } from '@notegate/kit/cli';
import { packageVersion, runSubcommand } from '@notegate/kit/cli';

/**
 * Subcommands of `notegate`; each module only parses flags and wires real implementations. Loaded on
 * demand: importing every command cost each `notegate agent` run about 100 ms (the demo runs six), and
 * the top-level help needs only these summaries.
 */
const COMMANDS: ReadonlyMap<string, CommandEntry> = new Map<string, CommandEntry>([
  [
    'identity-provider',
    {
      summary: 'Development SPIFFE identity provider: the real Workload API on one unix socket per workload.',
      load: async () => (await import('./identity-provider-command.js')).identityProviderCommand(),
    },
  ],
  [
    'authz',
    {
      summary: 'Token service: a JWT-SVID client assertion in, an audience-bound ES256 access token out.',
      load: async () => (await import('./authz-command.js')).authzCommand(),
      subcommands: new Map<string, CommandEntry>([
        [
          'keygen',
          {
            summary: 'Writes or changes the signing key file of authz --signing-keys.',
            load: async () => (await import('./authz-keygen-command.js')).authzKeygenCommand(),
          },
        ],
        [
          'check-policy',
          {
            summary: 'Checks a policy file as authz --policy reads it, and prints the grants it makes.',
            load: async () => (await import('./authz-check-policy-command.js')).authzCheckPolicyCommand(),
          },
        ],
      ]),
    },
  ],
  [
    'notes-server',
    {
      summary:
        'Protected MCP notes server: tools notes.search, notes.read and notes.write behind bearer access tokens.',
      load: async () => (await import('./notes-server-command.js')).notesServerCommand,
    },
  ],
  [
    'agent',
    {
      summary: 'Agent client: safe discovery, a JWT-SVID, an access token, then one MCP tool call or the tool list.',
      load: async () => (await import('./agent-command.js')).agentCommand(),
    },
  ],
  [
    'proxy',
    {
      summary: 'Stdio MCP server for any MCP host: relays to a protected notes server with a workload-identity token.',
      load: async () => (await import('./proxy-command.js')).proxyCommand(),
    },
  ],
  [
    'token',
    {
      summary: 'The discovery chain once: prints an access token for --resource (or JSON with --json), for curl.',
      load: async () => (await import('./token-command.js')).tokenCommand(),
    },
  ],
  [
    'demo',
    {
      summary: 'The four scenarios end to end, with real processes on loopback and their audit lines.',
      load: async () => (await import('./demo-command.js')).demoCommand(),
    },
  ],
]);

process.exitCode = await runSubcommand(
  { name: 'notegate', version: packageVersion(import.meta.url) },
  COMMANDS,
  process.argv.slice(2),
);
