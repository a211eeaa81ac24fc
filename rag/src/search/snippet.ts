import { queryTerms } from '../lexical/query-terms.js';

/** Ours: about two lines of text around the match. */
const SNIPPET_MAX_CHARACTERS = 240;

/**
 * The query's terms as patterns over the source text, case-insensitive: a word
 * matches at the start of a word (`rotate` finds `rotated`), an n-gram of an
 * unspaced script anywhere.
 */
export function termPatterns(query: string): RegExp[] {
  const { terms } = queryTerms(query, { ngrams: true });
  return terms.map((term) => {
    const escaped = term.text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return new RegExp(term.kind === 'word' ? `(?<![\\p{L}\\p{M}\\p{N}])${escaped}` : escaped, 'giu');
  });
}

/**
 * A short excerpt of a chunk for a search hit: whitespace collapsed, starting
 * a little before the first match of the query's terms (`termPatterns`), else
 * at the start; cut at word boundaries and marked with `…` where text was left
 * out. Only a window around the match is collapsed and cut, so the cost does
 * not grow with the chunk.
 */
export function snippetOf(text: string, patterns: readonly RegExp[], maxCharacters = SNIPPET_MAX_CHARACTERS): string {
  const match = firstMatch(text, patterns);
  // Collapsing whitespace only shortens text: a window of three times the snippet around the match is enough.
  const from = Math.max(0, match - maxCharacters);
  const to = Math.min(text.length, match + 2 * maxCharacters);
  const window = collapse(text.slice(from, to));
  // Either test stops at the first character that is not a space.
  const atStart = from === 0 || !/\S/.test(text.slice(0, from));
  const atEnd = to === text.length || !/\S/.test(text.slice(to));
  if (atStart && atEnd && window.length <= maxCharacters) return window;
  const inWindow = collapse(text.slice(from, match)).length;
  let start = Math.max(0, Math.min(inWindow - Math.floor(maxCharacters / 4), window.length - maxCharacters));
  if (start > 0) {
    const space = window.indexOf(' ', start);
    start = space >= 0 && space < inWindow ? space + 1 : start;
  }
  let end = Math.min(window.length, start + maxCharacters);
  if (end < window.length) {
    const space = window.lastIndexOf(' ', end);
    end = space > start ? space : end;
  }
  const cutBefore = start > 0 || !atStart;
  const cutAfter = end < window.length || !atEnd;
  return `${cutBefore ? '…' : ''}${window.slice(start, end)}${cutAfter ? '…' : ''}`;
}

/** Where the first match of any pattern begins in `text`; 0 when none matches. */
function firstMatch(text: string, patterns: readonly RegExp[]): number {
  let first = -1;
  for (const pattern of patterns) {
    const at = text.search(pattern);
    if (at >= 0 && (first < 0 || at < first)) first = at;
  }
  return Math.max(0, first);
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
