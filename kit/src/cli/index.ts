/** The command-line pieces every notegate executable shares (`@notegate/kit/cli`). */
export type { Command, CommandIo, Program } from './command.js';
export { EXIT, operatorLog, processIo, runCommand, untilShutdown } from './command.js';
export type { CommandEntry } from './dispatch.js';
export { runSubcommand } from './dispatch.js';
export type { CommandLine, OptionSpec, OptionsSpec, ParsedOptions } from './options.js';
export { formatHelp, parseCommandLine } from './options.js';
export { packageVersion } from './package-version.js';
export { UsageError } from './usage-error.js';
export { listenAddressOf, parseChoice, parseHttpUrl, parseInteger, parsePort } from './values.js';
