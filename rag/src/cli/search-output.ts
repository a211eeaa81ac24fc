import { queryTerms } from '../lexical/query-terms.js';
import type { SearchHit } from '../search/hybrid-search.js';

/** How much of a chunk the snippet shows, in characters. */
const SNIPPET_CHARACTERS = 240;
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
 * with the query's terms marked on a terminal.
 */
export function formatHits(hits: readonly SearchHit[], query: string, style: HitStyle): string {
  if (hits.length === 0) return 'no matches\n';
  const paint = (code: string, text: string) => (style.color ? `${code}${text}${RESET}` : text);
  const patterns = termPatterns(query);
  return `${hits
    .map((hit, i) => {
      const lines = [
        `${i + 1}. ${paint(BOLD, hit.title)}  ${paint(DIM, `${hit.vault}/${hit.path}:${hit.lineStart}-${hit.lineEnd}`)}`,
      ];
      if (hit.heading !== '') lines.push(`   ${hit.heading}`);
      const snippet = snippetOf(hit.text, patterns);
      lines.push(`   ${mark(snippet, patterns, (text) => paint(MARK, text))}`);
      return lines.join('\n');
    })
    .join('\n\n')}\n`;
}

/**
 * The query's terms as patterns over the source text, case-insensitive: a word
 * matches at the start of a word (`rotate` marks `rotated`), an n-gram of an
 * unspaced script anywhere.
 */
export function termPatterns(query: string): RegExp[] {
  const { terms } = queryTerms(query, { ngrams: true });
  return terms.map((term) => {
    const escaped = term.text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return new RegExp(term.kind === 'word' ? `(?<![\\p{L}\\p{M}\\p{N}])${escaped}` : escaped, 'giu');
  });
}

/** A window of the text (whitespace collapsed) that starts a little before the first match. */
export function snippetOf(text: string, patterns: readonly RegExp[]): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const first = Math.min(...patterns.map((p) => flat.search(p)).filter((at) => at >= 0), Number.POSITIVE_INFINITY);
  const start = Number.isFinite(first) ? Math.max(0, first - SNIPPET_CHARACTERS / 4) : 0;
  const end = Math.min(flat.length, start + SNIPPET_CHARACTERS);
  return `${start > 0 ? '…' : ''}${flat.slice(start, end)}${end < flat.length ? '…' : ''}`;
}

/** Wraps every match of the patterns (overlaps merged) with `paint`. */
export function mark(text: string, patterns: readonly RegExp[], paint: (text: string) => string): string {
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
    out += text.slice(at, start) + paint(text.slice(start, end));
    at = end;
  }
  return out + text.slice(at);
}
