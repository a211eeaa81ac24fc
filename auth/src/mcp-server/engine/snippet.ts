/** Ours: about two lines of text around the match. */
const SNIPPET_MAX_CHARACTERS = 240;

/**
 * A short excerpt of a chunk for a search hit: whitespace collapsed, starting
 * a little before the first word of the query found in it (case-insensitive),
 * else at the start; cut at word boundaries and marked with `…` where text was
 * left out. Only a window around the match is collapsed and cut, so the cost
 * does not grow with the chunk.
 */
export function snippetOf(text: string, query: string, maxCharacters = SNIPPET_MAX_CHARACTERS): string {
  const match = firstMatch(text, query);
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

/** Where the first of the query's words (two characters or more) occurs in `text`, ignoring case; 0 when none does. */
function firstMatch(text: string, query: string): number {
  const lower = text.toLowerCase();
  let first = -1;
  for (const word of query.toLowerCase().split(/[^\p{L}\p{M}\p{N}]+/u)) {
    if (word.length < 2) continue;
    const at = lower.indexOf(word);
    if (at >= 0 && (first < 0 || at < first)) first = at;
  }
  return Math.max(0, first);
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
