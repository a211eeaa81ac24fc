#!/usr/bin/env node
import type { Command } from './command.js';
import { EXIT, runCommand } from './command.js';
import { notesServerCommand } from './notes-server-command.js';

/** Subcommands of `notegate`; each module only parses flags and wires real implementations. */
const COMMANDS: ReadonlyMap<string, Command> = new Map(
  ([notesServerCommand] as Command[]).map((command) => [command.name.replace(/^notegate /, ''), command]),
);

function topLevelHelp(): string {
  const names = [...COMMANDS.values()].map(
    (c) => `  ${c.name.replace(/^notegate /, '').padEnd(20)}${c.summary.split('\n')[0]}`,
  );
  return `Usage: notegate <command> [options]\n\nCommands:\n${names.join('\n')}\n\nRun 'notegate <command> --help' for the options of a command.\n`;
}

async function main(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(topLevelHelp());
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const command = COMMANDS.get(name);
  if (!command) {
    process.stderr.write(`notegate: unknown command '${name}'\n\n${topLevelHelp()}`);
    return EXIT.usage;
  }
  return runCommand(command, rest);
}

process.exitCode = await main(process.argv.slice(2));
