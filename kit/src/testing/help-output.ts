import assert from 'node:assert/strict';

/**
 * `--help` output with every wrapped entry joined back onto one line (an entry is an option's line
 * and the more deeply indented lines its text wraps onto), so a test can match an option's whole text.
 */
export function unwrapHelp(help: string): string {
  const lines: string[] = [];
  for (const line of help.split('\n')) {
    const last = lines.length - 1;
    if (last >= 0 && /^ {2}-/.test(lines[last] ?? '') && /^ {3,}\S/.test(line)) lines[last] += ` ${line.trim()}`;
    else lines.push(line);
  }
  return lines.join('\n');
}

/** Checks that `--help` output has an entry for each option, each naming its default or that it is required. */
export function assertOptionsDocumented(help: string, options: readonly string[]): void {
  const lines = unwrapHelp(help).split('\n');
  for (const option of options) {
    const line = lines.find((text) => text.startsWith(`  ${option} `));
    assert.ok(line, `--help lists ${option}`);
    assert.match(line, /\((default: .+|required)\)$/, `${option} names its default`);
  }
}
