import type { CountTokens } from './types.js';

/** A piece of an oversized block: whole lines, or part of one line when a single line is too long. */
export interface Piece {
  readonly start: number;
  readonly end: number;
  readonly tokens: number;
  /** Set when the piece is part of one line (so it cannot be quoted as whole lines). */
  readonly partialText?: string;
}

/**
 * Splits lines `start..end` into pieces of at most `budget` tokens: at line
 * boundaries first, then a too-long line at whitespace, then a too-long word
 * by characters. Last resort only: callers keep blocks whole when they fit.
 */
export function splitOversize(
  lines: readonly string[],
  start: number,
  end: number,
  budget: number,
  count: CountTokens,
): Piece[] {
  const pieces: Piece[] = [];
  let open: { start: number; end: number; tokens: number } | undefined;
  for (let i = start; i <= end; i += 1) {
    const line = lines[i] ?? '';
    const tokens = count(line);
    if (tokens > budget) {
      if (open) pieces.push(open);
      open = undefined;
      for (const part of splitLine(line, budget, count)) pieces.push({ start: i, end: i, ...part });
    } else if (open && open.tokens + tokens <= budget) {
      open = { start: open.start, end: i, tokens: open.tokens + tokens };
    } else {
      if (open) pieces.push(open);
      open = { start: i, end: i, tokens };
    }
  }
  if (open) pieces.push(open);
  return pieces;
}

/** Token counts add up across whitespace, so words are counted once each (no quadratic re-counting). */
function splitLine(line: string, budget: number, count: CountTokens): { tokens: number; partialText: string }[] {
  const parts: { tokens: number; partialText: string }[] = [];
  let current = '';
  let currentTokens = 0;
  const flush = () => {
    if (current.trim() !== '') parts.push({ tokens: currentTokens, partialText: current });
    current = '';
    currentTokens = 0;
  };
  for (const word of line.split(/(?<=\s)/)) {
    const tokens = count(word);
    if (tokens > budget) {
      flush();
      parts.push(...splitWord(word, budget, count));
    } else {
      if (currentTokens + tokens > budget) flush();
      current += word;
      currentTokens += tokens;
    }
  }
  flush();
  return parts;
}

function splitWord(word: string, budget: number, count: CountTokens): { tokens: number; partialText: string }[] {
  const parts: { tokens: number; partialText: string }[] = [];
  let rest = [...word];
  while (rest.length > 0) {
    // Largest prefix that fits, by binary search over code points.
    let low = 1;
    let high = rest.length;
    while (low < high) {
      const mid = Math.ceil((low + high) / 2);
      if (count(rest.slice(0, mid).join('')) <= budget) low = mid;
      else high = mid - 1;
    }
    const text = rest.slice(0, low).join('');
    parts.push({ tokens: count(text), partialText: text });
    rest = rest.slice(low);
  }
  return parts;
}
