/**
 * Text from notes or the network on an operator's terminal (docs/security.md#operators-terminals).
 * A terminal acts on what it is sent: ESC and the C1 controls open ECMA-48 control sequences (CSI
 * clears the screen or moves the cursor; OSC sets the window title, or with OSC 52 the clipboard), CR
 * and BS overwrite what was shown. The bidirectional formatting characters of Unicode (UAX #9) reorder
 * what is shown around them, so a path or a line can read as something else. A lone surrogate is no
 * character at all: written as UTF-8 it turns into U+FFFD and hides what was there.
 */
const TERMINAL_CONTROL = /[\p{Cc}\p{Bidi_Control}\p{Cs}]/u;
const TERMINAL_CONTROLS = new RegExp(TERMINAL_CONTROL.source, 'gu');
/**
 * What JSON.stringify leaves as it is of those: it escapes U+0000–U+001F and lone surrogates itself,
 * but writes DEL, the C1 controls and the bidirectional formatting characters raw.
 */
const RAW_IN_JSON = /[\u007f-\u009f\p{Bidi_Control}]/gu;

/** The first character a terminal would act on (a control, a bidirectional format character, a lone surrogate). */
export function firstTerminalControl(text: string): string | undefined {
  return TERMINAL_CONTROL.exec(text)?.[0];
}

/** How a message names such a character: `the control character U+001B`, `the unpaired surrogate U+D800`, … */
export function describeTerminalControl(character: string): string {
  const name = `U+${hex(character, 4).toUpperCase()}`;
  if (/\p{Cc}/u.test(character)) return `the control character ${name}`;
  if (/\p{Cs}/u.test(character)) return `the unpaired surrogate ${name}`;
  return `the bidirectional formatting character ${name}`;
}

export interface TerminalTextOptions {
  /** Keep line feeds as line breaks (a message of several lines); otherwise they are shown as `\n` too. */
  readonly keepLineBreaks?: boolean;
}

/**
 * The text with every character a terminal would act on shown as an escape: `\x1b`, `\x9b`, `\x7f`
 * (up to U+00FF), `\u202e`, `\ud800`. Everything else is unchanged, so text without such characters
 * comes back as it was. For text from notes or the network on its way to a terminal, with or without a
 * TTY: a file or a pipe is read on a terminal later.
 */
export function terminalText(text: string, options: TerminalTextOptions = {}): string {
  if (!TERMINAL_CONTROL.test(text)) return text;
  return text.replace(TERMINAL_CONTROLS, (character) =>
    character === '\n' && options.keepLineBreaks === true ? character : escaped(character),
  );
}

/**
 * JSON.stringify of `value`, with the characters it leaves raw that a terminal would act on written as
 * `\uXXXX` escapes: the same JSON value for every parser (RFC 8259 §7), safe to print (`--json`).
 */
export function terminalJson(value: unknown, indent?: number): string {
  const json = JSON.stringify(value, null, indent);
  return json.replace(RAW_IN_JSON, (character) => `\\u${hex(character, 4)}`);
}

function escaped(character: string): string {
  const code = character.codePointAt(0) ?? 0;
  return code <= 0xff ? `\\x${hex(character, 2)}` : `\\u${hex(character, 4)}`;
}

function hex(character: string, digits: number): string {
  return (character.codePointAt(0) ?? 0).toString(16).padStart(digits, '0');
}
