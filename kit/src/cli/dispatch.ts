import type { Command, CommandIo, Program } from './command.js';
import { EXIT, processIo, runCommand, versionLine } from './command.js';
import { twoColumns, wrapWords } from './help-text.js';

/**
 * A subcommand: its one-line summary, and a loader for its module. A run
 * imports only the module of the command it runs, and the top-level help
 * imports none (it needs only the summaries).
 */
export interface CommandEntry {
  readonly summary: string;
  readonly load: () => Promise<Command>;
  /** Commands under this one (`notegate authz keygen`), chosen by the first word after its name. */
  readonly subcommands?: ReadonlyMap<string, CommandEntry>;
}

/**
 * The front of an executable with subcommands (`notegate <command>`,
 * `notegate-rag <command>`): top-level help and version, unknown commands
 * (exit 2), and `runCommand` for the chosen one.
 */
export async function runSubcommand(
  program: Program,
  commands: ReadonlyMap<string, CommandEntry>,
  argv: readonly string[],
  io: CommandIo = processIo,
): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--version') {
    io.stdout(versionLine(program));
    return EXIT.ok;
  }
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(topLevelHelp(program, commands, io.columns));
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const entry = commands.get(name);
  if (!entry) {
    io.stderr(`${program.name}: unknown command '${name}'\n\n${topLevelHelp(program, commands, io.columns)}`);
    return EXIT.usage;
  }
  const sub = rest[0] === undefined ? undefined : entry.subcommands?.get(rest[0]);
  if (sub) return runCommand(await sub.load(), rest.slice(1), program, io);
  return runCommand(await entry.load(), rest, program, io);
}

function topLevelHelp(program: Program, commands: ReadonlyMap<string, CommandEntry>, width = 80): string {
  const rows = [...commands].map(([name, entry]) => [name, entry.summary] as const);
  const footer = wrapWords(
    `Run '${program.name} <command> --help' for the options of a command, '${program.name} --version' for its version.`,
    width,
  );
  return `Usage: ${program.name} <command> [options]\n\nCommands:\n${twoColumns(rows, width, 20)}\n\n${footer.join('\n')}\n`;
}
