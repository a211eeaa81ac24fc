import type { Command, CommandIo } from './command.js';
import { EXIT, processIo, runCommand } from './command.js';

/** A subcommand, or a loader for it: a run imports only the module of the command it runs. */
export type CommandEntry = Command | (() => Promise<Command>);

/**
 * The front of an executable with subcommands (`notegate <command>`,
 * `notegate-rag <command>`): top-level help, unknown commands (exit 2), and
 * `runCommand` for the chosen one.
 */
export async function runSubcommand(
  program: string,
  commands: ReadonlyMap<string, CommandEntry>,
  argv: readonly string[],
  io: CommandIo = processIo,
): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(await topLevelHelp(program, commands));
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const entry = commands.get(name);
  if (!entry) {
    io.stderr(`${program}: unknown command '${name}'\n\n${await topLevelHelp(program, commands)}`);
    return EXIT.usage;
  }
  return runCommand(await load(entry), rest, io);
}

function load(entry: CommandEntry): Promise<Command> {
  return typeof entry === 'function' ? entry() : Promise.resolve(entry);
}

/** Loads every command for its summary: help is rare, a run should not pay for the others' modules. */
async function topLevelHelp(program: string, commands: ReadonlyMap<string, CommandEntry>): Promise<string> {
  const loaded = await Promise.all(
    [...commands.entries()].map(async ([name, entry]) => [name, await load(entry)] as const),
  );
  const names = loaded.map(([name, c]) => `  ${name.padEnd(20)}${c.summary.split('\n')[0]}`);
  return `Usage: ${program} <command> [options]\n\nCommands:\n${names.join('\n')}\n\nRun '${program} <command> --help' for the options of a command.\n`;
}
