/** Ours: about two lines of text around the match. */
export const SNIPPET_MAX_CHARACTERS = 240;

/**
 * A short excerpt of a chunk for a search hit: whitespace collapsed, starting
 * a little before the first word of the query found in it (case-insensitive),
 * else at the start; cut at word boundaries and marked with `…` where text was
 * left out.
 */
export function snippetOf(text: string, query: string, maxCharacters = SNIPPET_MAX_CHARACTERS): string {
  const flat = text.replace(/\s+/gu, ' ').trim();
  if (flat.length <= maxCharacters) return flat;
  const lower = flat.toLowerCase();
  const words = query
    .toLowerCase()
    .split(/[^\p{L}\p{M}\p{N}]+/u)
    .filter((word) => word.length >= 2);
  const hits = words.map((word) => lower.indexOf(word)).filter((at) => at >= 0);
  const match = hits.length > 0 ? Math.min(...hits) : 0;
  let start = Math.max(0, Math.min(match - Math.floor(maxCharacters / 4), flat.length - maxCharacters));
  if (start > 0) {
    const space = flat.indexOf(' ', start);
    start = space >= 0 && space < match ? space + 1 : start;
  }
  let end = Math.min(flat.length, start + maxCharacters);
  if (end < flat.length) {
    const space = flat.lastIndexOf(' ', end);
    end = space > start ? space : end;
  }
  return `${start > 0 ? '…' : ''}${flat.slice(start, end)}${end < flat.length ? '…' : ''}`;
}
