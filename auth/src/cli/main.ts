#!/usr/bin/env node
import { agentCommand } from './agent-command.js';
import { authzCommand } from './authz-command.js';
import type { Command } from './command.js';
import { runSubcommand } from './dispatch.js';
import { identityProviderCommand } from './identity-provider-command.js';
import { notesServerCommand } from './notes-server-command.js';

/** Subcommands of `notegate`; each module only parses flags and wires real implementations. */
const COMMANDS: ReadonlyMap<string, Command> = new Map(
  [identityProviderCommand(), authzCommand(), notesServerCommand, agentCommand()].map((command) => [
    command.name.replace(/^notegate /, ''),
    command,
  ]),
);

process.exitCode = await runSubcommand('notegate', COMMANDS, process.argv.slice(2));
