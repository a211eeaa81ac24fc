import { errorMessage } from '../error-message.js';
import { terminalText } from '../terminal-text.js';
import type { CommandLine, OptionsSpec } from './options.js';
import { formatHelp, parseCommandLine } from './options.js';
import { UsageError } from './usage-error.js';

/** Exit codes shared by every executable. */
export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

export interface Command<S extends OptionsSpec = OptionsSpec> {
  readonly name: string;
  readonly usage: string;
  readonly summary: string;
  readonly options: S;
  /** Whether the command takes a trailing `-- <command> [args…]`. */
  readonly acceptsRest?: boolean;
  /** Whether the command takes operands, words that are not options (`search QUERY`). */
  readonly acceptsOperands?: boolean;
  /** Resolves with the process exit code once the command is done. */
  run(line: CommandLine<S>): Promise<number>;
}

export interface CommandIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Width of the terminal help is printed to (80 when stdout is not a terminal). */
  readonly columns?: number;
}

const LINES = { keepLineBreaks: true } as const;

/** Help wider than this is hard to read, however wide the terminal. */
const MAX_HELP_COLUMNS = 100;

export const processIo: CommandIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  get columns() {
    return Math.min(process.stdout.columns || 80, MAX_HELP_COLUMNS);
  },
};

/**
 * A long-running command's lines for its operator on stderr, `name: message`, one line each: the
 * message may carry file names or what a client or server sent, so every control character in it is
 * shown as an escape (docs/security.md#operators-terminals).
 */
export function operatorLog(name: string, io: CommandIo = processIo): (message: string) => void {
  return (message) => io.stderr(`${name}: ${terminalText(message)}\n`);
}

/** An executable's name and version, as `--version` prints them. */
export interface Program {
  readonly name: string;
  readonly version: string;
}

/**
 * Parses, prints help or the version, runs; turns errors into one line on
 * stderr and an exit code (2 for usage errors). Never prints a stack trace.
 */
export async function runCommand<S extends OptionsSpec>(
  command: Command<S>,
  argv: readonly string[],
  program: Program,
  io: CommandIo = processIo,
): Promise<number> {
  try {
    const line = parseCommandLine(command.options, argv, {
      acceptsRest: command.acceptsRest ?? false,
      acceptsOperands: command.acceptsOperands ?? false,
    });
    if (line.version) {
      io.stdout(versionLine(program));
      return EXIT.ok;
    }
    if (line.help) {
      io.stdout(formatHelp(command.usage, command.summary, command.options, io.columns));
      return EXIT.ok;
    }
    return await command.run(line);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(`${command.name}: ${terminalText(err.message, LINES)}\nTry '${command.name} --help'.\n`);
      return EXIT.usage;
    }
    // An error may quote a file name or a server's answer (docs/security.md#operators-terminals).
    io.stderr(`${command.name}: ${terminalText(errorMessage(err), LINES)}\n`);
    return EXIT.failure;
  }
}

export function versionLine(program: Program): string {
  return `${program.name} ${program.version}\n`;
}

/** Runs `cleanup` once on SIGINT/SIGTERM and resolves; used by long-running servers. */
export function untilShutdown(cleanup: () => Promise<void> | void): Promise<void> {
  return new Promise((resolve) => {
    let stopping = false;
    const onSignal = () => {
      if (stopping) return;
      stopping = true;
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      Promise.resolve()
        .then(cleanup)
        .finally(() => resolve());
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
