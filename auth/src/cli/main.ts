#!/usr/bin/env node
import type { CommandEntry } from './dispatch.js';
import { runSubcommand } from './dispatch.js';

/**
 * Subcommands of `notegate`; each module only parses flags and wires real implementations. Loaded on
 * demand: importing every command cost each `notegate agent` run about 100 ms (the demo runs six).
 */
const COMMANDS: ReadonlyMap<string, CommandEntry> = new Map<string, CommandEntry>([
  ['identity-provider', async () => (await import('./identity-provider-command.js')).identityProviderCommand()],
  ['authz', async () => (await import('./authz-command.js')).authzCommand()],
  ['notes-server', async () => (await import('./notes-server-command.js')).notesServerCommand],
  ['agent', async () => (await import('./agent-command.js')).agentCommand()],
  ['demo', async () => (await import('./demo-command.js')).demoCommand()],
]);

process.exitCode = await runSubcommand('notegate', COMMANDS, process.argv.slice(2));
