/** The generic CLI pieces, shared with other packages of the workspace (`@notegate/auth/cli`). */
export { UsageError } from '../errors/usage-error.js';
export type { Command, CommandIo } from './command.js';
export { EXIT, processIo, runCommand, untilShutdown } from './command.js';
export type { CommandEntry } from './dispatch.js';
export { runSubcommand } from './dispatch.js';
export type { CommandLine, OptionSpec, OptionsSpec, ParsedOptions } from './options.js';
export { formatHelp, parseCommandLine } from './options.js';
export { parseChoice, parseHttpUrl, parseInteger, parsePort } from './values.js';
