/**
 * Breaks `text` into lines of at most `width` characters at spaces: the first line starts with
 * `first`, the others with `rest` (a hanging indent). A word longer than a line (a URL) is kept whole.
 */
export function wrap(text: string, width: number, first: string, rest: string): string[] {
  const lines: string[] = [];
  let line = first;
  let empty = true;
  for (const word of text.split(' ').filter((part) => part !== '')) {
    if (!empty && line.length + 1 + word.length > width) {
      lines.push(line);
      line = rest + word;
    } else {
      line += empty ? word : ` ${word}`;
    }
    empty = false;
  }
  lines.push(line);
  return lines;
}
