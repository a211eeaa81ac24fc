/**
 * Markdown as a person reads it, for snippets (docs/retrieval.md#snippets): the
 * words stay, the syntax goes. Line by line: fence lines, heading marks, list
 * and quote markers, table pipes and rules are dropped; inside a line, links
 * and wikilinks keep their text, emphasis and code marks go, and HTML tags go.
 * The text of code blocks is kept as it is (only their fences go). Pure and
 * forgiving: what is not recognized is left as written.
 */

const FENCE = /^ {0,3}(?:`{3,}|~{3,})/;
const RULE = /^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$/;
const TABLE_DIVIDER = /^ {0,3}\|?[ \t]*:?-{3,}:?[ \t]*(?:\|[ \t]*:?-{3,}:?[ \t]*)*\|?[ \t]*$/;
const QUOTE_AND_LIST_MARKERS = /^[ \t]*(?:>[ \t]?)*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?)?/;
const HEADING = /^ {0,3}#{1,6}(?:[ \t]+|$)/;
const CLOSING_HASHES = /[ \t]+#+[ \t]*$/;
const TABLE_ROW = /^ {0,3}\|/;

/** The rules for text inside a line, in order: code spans, images before links, links before emphasis. */
const INLINE: readonly (readonly [RegExp, string])[] = [
  [/(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g, '$2'],
  [/!\[([^\]]*)\]\([^)]*\)/g, '$1'],
  [/\[\[[^\]|]*\|([^\]]*)\]\]/g, '$1'],
  [/\[\[([^\]|#]*)#([^\]|]*)\]\]/g, '$1 › $2'],
  [/\[\[([^\]|]*)\]\]/g, '$1'],
  [/\[([^\]]*)\]\([^)]*\)/g, '$1'],
  [/\[([^\]]+)\]\[[^\]]*\]/g, '$1'],
  [/\[\^[^\]]*\]/g, ''],
  [/<(https?:\/\/[^>\s]+)>/g, '$1'],
  [/<\/?[A-Za-z][^>]*>/g, ''],
  [/(\*\*|__|~~|==)(?=\S)([\s\S]*?\S)\1/g, '$2'],
  [/(?<![\p{L}\p{N}*])\*(?=\S)([^*]*?\S)\*(?![\p{L}\p{N}*])/gu, '$1'],
  [/(?<![\p{L}\p{N}_])_(?=\S)([^_]*?\S)_(?![\p{L}\p{N}_])/gu, '$1'],
];
/** Escaped punctuation is plain text: kept out of the rules above as private-use characters, then put back. */
const ESCAPED = /\\([\\`*_{}[\]()#+\-.!|~<>=])/g;
const PRIVATE_USE_BASE = 0xe000;
const SHELTERED = /[\ue000-\ue07f]/g;
const HOLDS_SHELTERED = /[\ue000-\ue07f]/;

/** The text of markdown without its syntax, one output line per kept input line. */
export function plainText(markdown: string): string {
  const out: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split(/\r\n|\r|\n/)) {
    const marker = FENCE.exec(line)?.[0].trim();
    if (marker !== undefined && (fence === undefined || marker.startsWith(fence))) {
      fence = fence === undefined ? marker : undefined;
      continue;
    }
    if (fence !== undefined) {
      out.push(line);
      continue;
    }
    if (RULE.test(line) || TABLE_DIVIDER.test(line)) continue;
    out.push(inlineText(blockText(line)).trimEnd());
  }
  return out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** A line without the marks that make it a heading, quote, list item or table row. */
function blockText(line: string): string {
  if (HEADING.test(line)) return line.replace(HEADING, '').replace(CLOSING_HASHES, '');
  const text = line.replace(QUOTE_AND_LIST_MARKERS, '');
  if (!TABLE_ROW.test(line)) return text;
  return text
    .replace(/^\s*\|/, '')
    .replace(/\|\s*$/, '')
    .replace(/\s*\|\s*/g, ' · ')
    .trim();
}

function inlineText(line: string): string {
  // A line that holds such characters itself (an icon font's) keeps its escapes as written.
  const shelter = !HOLDS_SHELTERED.test(line);
  let text = !shelter
    ? line
    : line.replace(ESCAPED, (_, c: string) => String.fromCharCode(PRIVATE_USE_BASE + c.charCodeAt(0)));
  for (const [pattern, replacement] of INLINE) text = text.replace(pattern, replacement);
  return !shelter ? text : text.replace(SHELTERED, (c) => String.fromCharCode(c.charCodeAt(0) - PRIVATE_USE_BASE));
}
