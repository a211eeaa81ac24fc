import { terminalText } from '@notegate/kit';
import type { SearchHit } from '../search/hybrid-search.js';
import { snippetOf, termPatterns } from '../search/snippet.js';

const BOLD = '\x1b[1m';
const MARK = '\x1b[1;33m';
const DIM = '\x1b[2m';
const RESET = '\x1b[0m';

export interface HitStyle {
  /** ANSI styles (a terminal, and NO_COLOR unset). */
  readonly color: boolean;
}

/**
 * Hits for people (docs/retrieval.md#notegate-rag-search): rank, title,
 * `vault/path:lines`, the heading trail, and a snippet around the first match
 * with the query's terms marked on a terminal. Every text of a note, its path
 * included, has its control characters shown as escapes, on a terminal or not
 * (docs/security.md#operators-terminals); only the styles are ours.
 */
export function formatHits(hits: readonly SearchHit[], query: string, style: HitStyle): string {
  if (hits.length === 0) return 'no matches\n';
  const paint = (code: string, text: string) => (style.color ? `${code}${text}${RESET}` : text);
  const patterns = termPatterns(query);
  return `${hits
    .map((hit, i) => {
      const lines = [
        `${i + 1}. ${paint(BOLD, terminalText(hit.title))}  ${paint(DIM, terminalText(`${hit.vault}/${hit.path}:${hit.lineStart}-${hit.lineEnd}`))}`,
      ];
      if (hit.heading !== '') lines.push(`   ${terminalText(hit.heading)}`);
      const snippet = snippetOf(hit.text, patterns);
      lines.push(`   ${mark(snippet, patterns, (text) => paint(MARK, terminalText(text)), terminalText)}`);
      return lines.join('\n');
    })
    .join('\n\n')}\n`;
}

/** Wraps every match of the patterns (overlaps merged) with `paint`; the text between goes through `plain`. */
export function mark(
  text: string,
  patterns: readonly RegExp[],
  paint: (text: string) => string,
  plain: (text: string) => string = (text) => text,
): string {
  const ranges: [number, number][] = [];
  for (const pattern of patterns) {
    for (const match of text.matchAll(pattern)) ranges.push([match.index, match.index + match[0].length]);
  }
  ranges.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const [start, end] of ranges) {
    const last = merged[merged.length - 1];
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  let out = '';
  let at = 0;
  for (const [start, end] of merged) {
    out += plain(text.slice(at, start)) + paint(text.slice(start, end));
    at = end;
  }
  return out + plain(text.slice(at));
}
