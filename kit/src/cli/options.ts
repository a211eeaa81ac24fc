import { parseArgs } from 'node:util';
import { errorMessage } from '../error-message.js';
import { twoColumns, wrapWords } from './help-text.js';
import { UsageError } from './usage-error.js';

export interface StringOption {
  readonly type: 'string';
  readonly description: string;
  /** Placeholder shown in help, for example `URL` or `FILE`. */
  readonly valueName: string;
  readonly default?: string;
  /** Text shown as the default when it is computed (for example from another flag). */
  readonly defaultText?: string;
  readonly required?: boolean;
}

export interface MultiStringOption {
  readonly type: 'string';
  readonly multiple: true;
  readonly description: string;
  readonly valueName: string;
  readonly defaultText?: string;
  readonly required?: boolean;
}

export interface BooleanOption {
  readonly type: 'boolean';
  readonly description: string;
}

export type OptionSpec = StringOption | MultiStringOption | BooleanOption;
export type OptionsSpec = Readonly<Record<string, OptionSpec>>;

type ValueOf<O extends OptionSpec> = O extends BooleanOption
  ? boolean
  : O extends MultiStringOption
    ? string[]
    : O extends { readonly default: string }
      ? string
      : O extends { readonly required: true }
        ? string
        : string | undefined;

export type ParsedOptions<S extends OptionsSpec> = { -readonly [K in keyof S]: ValueOf<S[K]> };

export interface CommandLine<S extends OptionsSpec> {
  readonly options: ParsedOptions<S>;
  /** Words before `--` that are not options (only when the command takes operands, such as a query). */
  readonly operands: string[];
  /** Words after `--` (only when the command accepts a trailing command). */
  readonly rest: string[];
  readonly help: boolean;
  readonly version: boolean;
}

/**
 * Parses `argv` strictly: unknown options, missing values, stray positionals
 * and missing required options are UsageErrors naming the flag. A command
 * that takes operands gets its positionals in `operands` instead.
 */
export function parseCommandLine<S extends OptionsSpec>(
  spec: S,
  argv: readonly string[],
  { acceptsRest = false, acceptsOperands = false }: { acceptsRest?: boolean; acceptsOperands?: boolean } = {},
): CommandLine<S> {
  const config = Object.fromEntries(
    Object.entries(spec).map(([name, option]) => [
      name,
      { type: option.type, multiple: 'multiple' in option ? option.multiple : false },
    ]),
  );
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: { ...config, help: { type: 'boolean', short: 'h' }, version: { type: 'boolean' } },
      strict: true,
      allowPositionals: true,
      tokens: true,
    });
  } catch (err) {
    throw new UsageError(describeParseError(err));
  }
  const terminator = parsed.tokens?.find((token) => token.kind === 'option-terminator');
  const restStart = terminator ? terminator.index + 1 : argv.length;
  const positionals = (parsed.tokens ?? []).flatMap((token) =>
    token.kind === 'positional' && token.index < restStart ? [token.value] : [],
  );
  if (!acceptsOperands && positionals.length > 0) {
    throw new UsageError(`unexpected argument '${positionals[0]}'${acceptsRest ? ' (put the command after --)' : ''}`);
  }
  const rest = argv.slice(restStart);
  if (!acceptsRest && rest.length > 0) throw new UsageError(`unexpected argument '${rest[0]}'`);
  const help = parsed.values.help === true;
  const version = parsed.values.version === true;
  const options: Record<string, unknown> = {};
  for (const [name, option] of Object.entries(spec)) {
    const value = parsed.values[name];
    if (option.type === 'boolean') options[name] = value === true;
    else if ('multiple' in option) options[name] = (value as string[] | undefined) ?? [];
    else options[name] = (value as string | undefined) ?? option.default;
    if (!help && !version && 'required' in option && option.required && isMissing(options[name])) {
      throw new UsageError(`--${name} is required`);
    }
  }
  return { options: options as ParsedOptions<S>, operands: positionals, rest, help, version };
}

function isMissing(value: unknown): boolean {
  return value === undefined || (Array.isArray(value) && value.length === 0);
}

function describeParseError(err: unknown): string {
  const message = errorMessage(err);
  const unknown = /Unknown option '([^']+)'/.exec(message);
  if (unknown) return `unknown option ${unknown[1]}`;
  const missing = /Option '([^']+?)(?: <value>)?' argument missing/.exec(message);
  if (missing) return `option ${missing[1]} needs a value`;
  const noValue = /Option '([^']+)' does not take an argument/.exec(message);
  if (noValue) return `option ${noValue[1]} does not take a value`;
  return message.split('\n')[0] ?? message;
}

/** Help text listing every option with its default, wrapped at `width` columns (never cut). */
export function formatHelp(usage: string, summary: string, spec: OptionsSpec, width = 80): string {
  const rows = Object.entries(spec).map(([name, option]) => {
    const left = option.type === 'boolean' ? `--${name}` : `--${name} ${option.valueName}`;
    return [left, describeOption(option)] as const;
  });
  rows.push(['--version', 'Print the version and exit.'], ['--help', 'Show this help and exit.']);
  const text = wrapWords(summary, width).join('\n');
  return `Usage: ${usage}\n\n${text}\n\nOptions:\n${twoColumns(rows, width)}\n`;
}

function describeOption(option: OptionSpec): string {
  if (option.type === 'boolean') return `${option.description} (default: off)`;
  if ('required' in option && option.required) return `${option.description} (required)`;
  const fallback = option.defaultText ?? ('default' in option ? option.default : undefined);
  const suffix = 'multiple' in option ? ' Repeatable.' : '';
  return `${option.description}${suffix} (default: ${fallback ?? 'none'})`;
}
