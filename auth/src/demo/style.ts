/** Terminal styling for the demo's report: ANSI SGR codes, or nothing. */
export interface Style {
  readonly bold: (text: string) => string;
  readonly dim: (text: string) => string;
  readonly green: (text: string) => string;
  readonly red: (text: string) => string;
  readonly yellow: (text: string) => string;
  readonly cyan: (text: string) => string;
}

const sgr = (open: number, close: number) => (text: string) => `\u001b[${open}m${text}\u001b[${close}m`;

const COLOURS: Style = {
  bold: sgr(1, 22),
  dim: sgr(2, 22),
  green: sgr(32, 39),
  red: sgr(31, 39),
  yellow: sgr(33, 39),
  cyan: sgr(36, 39),
};

const plain = (text: string) => text;
const PLAIN: Style = { bold: plain, dim: plain, green: plain, red: plain, yellow: plain, cyan: plain };

export function terminalStyle(colour: boolean): Style {
  return colour ? COLOURS : PLAIN;
}

/** Colours only on a terminal, and never with --no-color or a non-empty NO_COLOR (no-color.org). */
export function wantsColour(options: {
  isTty: boolean;
  noColorFlag: boolean;
  noColorEnv: string | undefined;
}): boolean {
  return options.isTty && !options.noColorFlag && (options.noColorEnv ?? '') === '';
}

/** Ours: the report wraps at the terminal's width, between 60 and 100 columns; 100 when not a terminal. */
export function reportWidth(columns: number | undefined): number {
  return columns === undefined ? 100 : Math.min(100, Math.max(60, columns));
}
