/** A POSIX shell word for `value`: as is when it holds only safe characters, else single-quoted. */
function shellWord(value: string): string {
  if (/^[A-Za-z0-9_/:.,=@%+-]+$/.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** Words joined into a line a shell reads back as the same words. */
export function shellWords(words: readonly string[]): string {
  return words.map(shellWord).join(' ');
}
