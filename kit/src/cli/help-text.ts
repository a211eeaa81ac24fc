/**
 * Help text laid out for a terminal: words wrapped at `width` columns, never
 * cut. In `text`, an empty line separates paragraphs; a line break before an
 * unindented line is a space; an indented line (`  0  success`) is a list
 * item that keeps its own line, its wrapped text hanging under its second word.
 */
export function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const [index, paragraph] of text.split(/\n\s*\n/).entries()) {
    if (index > 0) lines.push('');
    for (const item of itemsOf(paragraph)) lines.push(...wrapItem(item, width));
  }
  return lines;
}

function itemsOf(paragraph: string): string[] {
  const items: string[] = [];
  for (const line of paragraph.split('\n')) {
    const last = items.length - 1;
    if (last >= 0 && !/^\s/.test(line)) items[last] = `${items[last]} ${line.trim()}`;
    else items.push(line.trimEnd());
  }
  return items;
}

/** One item: an indented item keeps its marker (`  0  `) and hangs its wrapped text under the text's first word. */
function wrapItem(item: string, width: number): string[] {
  const prefix = /^\s+\S+\s+/.exec(item)?.[0] ?? '';
  const words = item.slice(prefix.length).trim().split(/\s+/);
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    if (line !== '' && prefix.length + line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  lines.push(line);
  return lines.map((text, i) => `${i === 0 ? prefix : ' '.repeat(prefix.length)}${text}`);
}

/** Rows of `left  right`, the right column wrapped; a left cell wider than `maxLeft` puts its text on the next line. */
export function twoColumns(rows: readonly (readonly [string, string])[], width: number, maxLeft = 28): string {
  const leftWidth = Math.min(maxLeft, Math.max(...rows.map(([left]) => left.length)));
  const indent = ' '.repeat(2 + leftWidth + 2);
  const rightWidth = Math.max(20, width - indent.length);
  return rows
    .flatMap(([left, right]) => {
      const wrapped = wrapWords(right, rightWidth);
      if (left.length > leftWidth) return [`  ${left}`, ...wrapped.map((line) => `${indent}${line}`)];
      const [first = '', ...more] = wrapped;
      return [`  ${left.padEnd(leftWidth)}  ${first}`, ...more.map((line) => `${indent}${line}`)];
    })
    .join('\n');
}
