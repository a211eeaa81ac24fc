import { queryTerms } from '../lexical/query-terms.js';
import type { Correction } from './lexical-leg.js';
import { plainText } from './plain-text.js';

/** Ours: about two lines of text around the match. */
const SNIPPET_MAX_CHARACTERS = 240;

/**
 * The query's terms as patterns over the source text, case-insensitive: a word
 * matches at the start of a word (`rotate` finds `rotated`), an n-gram of an
 * unspaced script anywhere.
 */
export function termPatterns(query: string, corrections: readonly Correction[] = []): RegExp[] {
  // The words searched instead of typos are marked too (docs/retrieval.md#typos).
  const text = [query, ...corrections.map((c) => c.to)].join(' ');
  const { terms } = queryTerms(text, { ngrams: true });
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

/** A snippet as shown: plain text, and the ranges `[start, end)` (UTF-16 offsets) where the query's terms match. */
export interface Snippet {
  readonly text: string;
  readonly marks: readonly (readonly [number, number])[];
}

/** The snippet of a chunk's markdown (docs/retrieval.md#snippets): its plain text around the first match, marked. */
export function hitSnippet(markdown: string, patterns: readonly RegExp[]): Snippet {
  const text = snippetOf(plainText(markdown), patterns);
  return { text, marks: matchRanges(text, patterns) };
}

/** Every match of the patterns in `text`, overlaps merged, in order. */
export function matchRanges(text: string, patterns: readonly RegExp[]): [number, number][] {
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
  return merged;
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
