import { documentTerms, type Token } from './tokenize.js';

export const SNIPPET_CHARS = 200;
/** How much text before the first match the window keeps, so the match reads in context. */
const LEAD_CHARS = 40;
/** Bounds the window search on very repetitive texts. */
const MAX_ANCHORS = 256;

/**
 * The passage of `text` around its best match: the window of SNIPPET_CHARS
 * holding the most distinct query terms (earliest on ties), cut at token
 * boundaries, whitespace collapsed, with an ellipsis where text was cut.
 * Without any match it is the start of the text.
 */
export function buildSnippet(text: string, query: ReadonlySet<string>, maxChars = SNIPPET_CHARS): string {
  const tokens = documentTerms(text);
  const windowStart = bestWindowStart(tokens.filter((token) => query.has(token.term)).slice(0, MAX_ANCHORS), maxChars);
  const start = windowStart === 0 ? 0 : (tokens.find((token) => token.start >= windowStart)?.start ?? windowStart);
  const limit = start + maxChars;
  let end = text.length;
  if (limit < text.length) {
    const inside = tokens.filter((token) => token.start >= start && token.end <= limit);
    end = inside[inside.length - 1]?.end ?? limit;
  }
  const passage = text.slice(start, end).replace(/\s+/gu, ' ').trim();
  return `${start > 0 ? '…' : ''}${passage}${end < text.length ? '…' : ''}`;
}

function bestWindowStart(matches: readonly Token[], maxChars: number): number {
  let best = 0;
  let bestDistinct = 0;
  for (const anchor of matches) {
    const start = Math.max(0, anchor.start - LEAD_CHARS);
    const inWindow = matches.filter((match) => match.start >= start && match.end <= start + maxChars);
    const distinct = new Set(inWindow.map((match) => match.term)).size;
    if (distinct > bestDistinct) {
      bestDistinct = distinct;
      best = start;
    }
  }
  return best;
}
