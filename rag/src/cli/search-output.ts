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
 * query's terms marked on a terminal.
 */
export function formatHits(result: Pick<SearchResult, 'hits' | 'corrections'>, query: string, style: HitStyle): string {
  const paint = (code: string, text: string) => (style.color ? `${code}${text}${RESET}` : text);
  const corrected =
    result.corrections.length === 0
      ? ''
      : `searched for ${result.corrections.map((c) => `${paint(BOLD, c.to)} (not ${c.from})`).join(', ')}\n\n`;
  if (result.hits.length === 0) return `${corrected}no matches\n`;
  const patterns = termPatterns(query, result.corrections);
  return `${corrected}${result.hits
    .map((hit, i) => {
      const lines = [
        `${i + 1}. ${paint(BOLD, hit.title)}  ${paint(DIM, `${hit.vault}/${hit.path}:${hit.lineStart}-${hit.lineEnd}`)}`,
      ];
      if (hit.heading !== '') lines.push(`   ${hit.heading}`);
      const snippet = hitSnippet(hit.text, patterns);
      if (snippet.text !== '')
        lines.push(`   ${paintRanges(snippet.text, snippet.marks, (text) => paint(MARK, text))}`);
      return lines.join('\n');
    })
    .join('\n\n')}\n`;
}

/** Wraps each range of `text` (in order, not overlapping) with `paint`. */
export function paintRanges(
  text: string,
  ranges: readonly (readonly [number, number])[],
  paint: (text: string) => string,
): string {
  let out = '';
  let at = 0;
  for (const [start, end] of ranges) {
    out += text.slice(at, start) + paint(text.slice(start, end));
    at = end;
  }
  return out + text.slice(at);
}
