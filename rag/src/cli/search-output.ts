import { terminalText } from '@notegate/kit';
import type { SearchResult } from '../search/hybrid-search.js';
import { hitSnippet, termPatterns } from '../search/snippet.js';

const BOLD = '\x1b[1m';
const MARK = '\x1b[1;33m';
const DIM = '\x1b[2m';
const RESET = '\x1b[0m';

export interface HitStyle {
  /** ANSI styles (a terminal, and NO_COLOR unset). */
  readonly color: boolean;
}

/**
 * Hits for people (docs/retrieval.md#notegate-rag-search): the words searched
 * instead of typos, then per hit its rank, title, `vault/path:lines`, the
 * heading trail, and a snippet of plain text around the first match with the
 * query's terms marked on a terminal. Every text of a note, its path and the
 * words searched instead included, has its control characters shown as
 * escapes, on a terminal or not (docs/security.md#operators-terminals); only
 * the styles are ours.
 */
export function formatHits(result: Pick<SearchResult, 'hits' | 'corrections'>, query: string, style: HitStyle): string {
  const paint = (code: string, text: string) => (style.color ? `${code}${text}${RESET}` : text);
  const corrected =
    result.corrections.length === 0
      ? ''
      : `searched for ${result.corrections.map((c) => `${paint(BOLD, terminalText(c.to))} (not ${terminalText(c.from)})`).join(', ')}\n\n`;
  if (result.hits.length === 0) return `${corrected}no matches\n`;
  const patterns = termPatterns(query, result.corrections);
  return `${corrected}${result.hits
    .map((hit, i) => {
      const lines = [
        `${i + 1}. ${paint(BOLD, terminalText(hit.title))}  ${paint(DIM, terminalText(`${hit.vault}/${hit.path}:${hit.lineStart}-${hit.lineEnd}`))}`,
      ];
      if (hit.heading !== '') lines.push(`   ${terminalText(hit.heading)}`);
      const snippet = hitSnippet(hit.text, patterns);
      if (snippet.text !== '')
        lines.push(
          `   ${paintRanges(snippet.text, snippet.marks, (text) => paint(MARK, terminalText(text)), terminalText)}`,
        );
      return lines.join('\n');
    })
    .join('\n\n')}\n`;
}

/** Wraps each range of `text` (in order, not overlapping) with `paint`; the text between goes through `plain`. */
export function paintRanges(
  text: string,
  ranges: readonly (readonly [number, number])[],
  paint: (text: string) => string,
  plain: (text: string) => string = (text) => text,
): string {
  let out = '';
  let at = 0;
  for (const [start, end] of ranges) {
    out += plain(text.slice(at, start)) + paint(text.slice(start, end));
    at = end;
  }
  return out + plain(text.slice(at));
}
