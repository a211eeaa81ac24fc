import type { Command, CommandIo } from './command.js';
import { EXIT, processIo, runCommand } from './command.js';

/**
 * The front of an executable with subcommands (`notegate <command>`,
 * `notegate-rag <command>`): top-level help, unknown commands (exit 2), and
 * `runCommand` for the chosen one.
 */
export async function runSubcommand(
  program: string,
  commands: ReadonlyMap<string, Command>,
  argv: readonly string[],
  io: CommandIo = processIo,
): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(topLevelHelp(program, commands));
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const command = commands.get(name);
  if (!command) {
    io.stderr(`${program}: unknown command '${name}'\n\n${topLevelHelp(program, commands)}`);
    return EXIT.usage;
  }
  return runCommand(command, rest, io);
}

function topLevelHelp(program: string, commands: ReadonlyMap<string, Command>): string {
  const names = [...commands.entries()].map(([name, c]) => `  ${name.padEnd(20)}${c.summary.split('\n')[0]}`);
  return `Usage: ${program} <command> [options]\n\nCommands:\n${names.join('\n')}\n\nRun '${program} <command> --help' for the options of a command.\n`;
}
