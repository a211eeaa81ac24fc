/**
 * Splits one line of bash into words the way bash would for the simple lines our deploy scripts use:
 * blanks separate words; '…' is literal; "…" expands $NAME and ${NAME} and honours \" and \\;
 * unquoted $NAME expands too. Anything else ($(…), globs, a $NAME with no value) is an error, so a
 * line the test cannot read exactly fails the test instead of being checked half-understood.
 */
export function splitShellWords(line: string, variables: ReadonlyMap<string, string>): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let i = 0;
  const expand = (): string => {
    const match = /^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/.exec(line.slice(i));
    const name = match?.[1] ?? match?.[2];
    if (!match || name === undefined) throw new Error(`cannot read '${line.slice(i)}' in: ${line}`);
    const value = variables.get(name);
    if (value === undefined) throw new Error(`$${name} has no value in: ${line}`);
    i += match[0].length;
    return value;
  };
  while (i < line.length) {
    const c = line.charAt(i);
    if (c === ' ' || c === '\t') {
      if (word !== undefined) words.push(word);
      word = undefined;
      i += 1;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated ' in: ${line}`);
      word = (word ?? '') + line.slice(i + 1, end);
      i = end + 1;
    } else if (c === '"') {
      word ??= '';
      i += 1;
      while (line.charAt(i) !== '"') {
        if (i >= line.length) throw new Error(`unterminated " in: ${line}`);
        if (line.charAt(i) === '\\' && /["\\$`]/.test(line.charAt(i + 1))) {
          word += line.charAt(i + 1);
          i += 2;
        } else if (line.charAt(i) === '$') word += expand();
        else if (line.charAt(i) === '`') throw new Error(`command substitution in: ${line}`);
        else {
          word += line.charAt(i);
          i += 1;
        }
      }
      i += 1;
    } else if (c === '$') {
      word = (word ?? '') + expand();
    } else if (/[`\\*?[\]{}();|&<>]/.test(c)) {
      throw new Error(`'${c}' is more shell than this reader handles, in: ${line}`);
    } else {
      word = (word ?? '') + c;
      i += 1;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** `NAME=value` lines at the start of a line (a script's settings), with '…' values unquoted. */
export function shellAssignments(script: string): Map<string, string> {
  const variables = new Map<string, string>();
  for (const match of script.matchAll(/^([A-Z_][A-Z0-9_]*)=(.*)$/gm)) {
    const [, name = '', value = ''] = match;
    const words = splitShellWords(value, variables);
    if (words.length !== 1) throw new Error(`${name}= is not one word: ${value}`);
    variables.set(name, words[0] ?? '');
  }
  return variables;
}
