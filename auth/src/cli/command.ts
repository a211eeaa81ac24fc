import { errorMessage } from '../errors/protocol-error.js';
import { UsageError } from '../errors/usage-error.js';
import type { CommandLine, OptionsSpec } from './options.js';
import { formatHelp, parseCommandLine } from './options.js';

/** Exit codes shared by every executable. */
export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

export interface Command<S extends OptionsSpec = OptionsSpec> {
  readonly name: string;
  readonly usage: string;
  readonly summary: string;
  readonly options: S;
  /** Whether the command takes a trailing `-- <command> [args…]`. */
  readonly acceptsRest?: boolean;
  /** Resolves with the process exit code once the command is done. */
  run(line: CommandLine<S>): Promise<number>;
}

export interface CommandIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

export const processIo: CommandIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

/**
 * Parses, prints help, runs; turns errors into one line on stderr and an exit
 * code (2 for usage errors). Never prints a stack trace.
 */
export async function runCommand<S extends OptionsSpec>(
  command: Command<S>,
  argv: readonly string[],
  io: CommandIo = processIo,
): Promise<number> {
  try {
    const line = parseCommandLine(command.options, argv, { acceptsRest: command.acceptsRest ?? false });
    if (line.help) {
      io.stdout(formatHelp(command.usage, command.summary, command.options));
      return EXIT.ok;
    }
    return await command.run(line);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(`${command.name}: ${err.message}\nTry '${command.name} --help'.\n`);
      return EXIT.usage;
    }
    io.stderr(`${command.name}: ${errorMessage(err)}\n`);
    return EXIT.failure;
  }
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
