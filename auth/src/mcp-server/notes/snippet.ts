import { documentTerms, type Token } from './tokenize.js';

export const SNIPPET_CHARS = 200;
/** How much text before the match the passage keeps, so the match reads in context. */
const LEAD_CHARS = 40;

/** Where each term first occurs in a text; kept per note at index time so snippets never rescan whole bodies. */
export function firstOffsets(tokens: readonly Token[]): ReadonlyMap<string, number> {
  const offsets = new Map<string, number>();
  for (const token of tokens) if (!offsets.has(token.term)) offsets.set(token.term, token.start);
  return offsets;
}

/**
 * The passage of `text` around the match: the window of SNIPPET_CHARS that
 * holds the first occurrences of the most distinct query terms (earliest on
 * ties), cut at token boundaries, whitespace collapsed, with an ellipsis where
 * text was cut. Without any match it is the start of the text. Only the window
 * itself is tokenized, so the cost does not grow with the note.
 */
export function buildSnippet(
  text: string,
  offsets: ReadonlyMap<string, number>,
  query: readonly string[],
  maxChars = SNIPPET_CHARS,
): string {
  const anchor = bestAnchor(offsets, query, maxChars);
  const windowStart = anchor === undefined ? 0 : Math.max(0, anchor - LEAD_CHARS);
  // One character of context on each side tells a whole word from one cut by the slice.
  const from = Math.max(0, windowStart - 1);
  const to = Math.min(text.length, windowStart + maxChars + 1);
  const tokens = documentTerms(text.slice(from, to)).map((token) => ({
    ...token,
    start: token.start + from,
    end: token.end + from,
  }));
  const start = windowStart === 0 ? 0 : (tokens.find((token) => token.start > from)?.start ?? windowStart);
  const limit = start + maxChars;
  let end = text.length;
  if (limit < text.length) {
    const inside = tokens.filter((token) => token.start >= start && token.end <= limit && token.end < to);
    end = inside[inside.length - 1]?.end ?? limit;
  }
  const passage = text.slice(start, end).replace(/\s+/gu, ' ').trim();
  return `${start > 0 ? '…' : ''}${passage}${end < text.length ? '…' : ''}`;
}

function bestAnchor(
  offsets: ReadonlyMap<string, number>,
  query: readonly string[],
  maxChars: number,
): number | undefined {
  const found = query.flatMap((term) => offsets.get(term) ?? []).sort((a, b) => a - b);
  let best: number | undefined;
  let bestCount = 0;
  for (const anchor of found) {
    const start = Math.max(0, anchor - LEAD_CHARS);
    const count = found.filter((offset) => offset >= start && offset < start + maxChars).length;
    if (count > bestCount) {
      bestCount = count;
      best = anchor;
    }
  }
  return best;
}
