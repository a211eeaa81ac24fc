import type { Steps } from '@notegate/kit';
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
 * Ours: texts up to this long are counted in one call (a few milliseconds with a real tokenizer);
 * longer ones in pieces of about this size, a step each (docs/retrieval.md#index-runs). No model
 * window holds this many characters, so a text counted in pieces never fits one chunk anyway.
 */
export const COUNT_AT_ONCE_CHARS = 16 * 1024;

/**
 * Splits lines `start..end` into pieces of at most `budget` tokens: at line
 * boundaries first, then a too-long line at whitespace, then a too-long word
 * by characters. Last resort only: callers keep blocks whole when they fit.
 * A step per line and per word of a split line.
 */
export function* splitOversize(
  lines: readonly string[],
  start: number,
  end: number,
  budget: number,
  count: CountTokens,
): Steps<Piece[]> {
  const pieces: Piece[] = [];
  let open: { start: number; end: number; tokens: number } | undefined;
  for (let i = start; i <= end; i += 1) {
    const line = lines[i] ?? '';
    const tokens = yield* countSteps(line, count);
    if (tokens > budget) {
      if (open) pieces.push(open);
      open = undefined;
      for (const part of yield* splitLine(line, budget, count)) pieces.push({ start: i, end: i, ...part });
    } else if (open && open.tokens + tokens <= budget) {
      open = { start: open.start, end: i, tokens: open.tokens + tokens };
    } else {
      if (open) pieces.push(open);
      open = { start: i, end: i, tokens };
    }
    yield;
  }
  if (open) pieces.push(open);
  return pieces;
}

/**
 * The tokens of `text`: one count when it is at most COUNT_AT_ONCE_CHARS long, else the sum over
 * pieces of about that size cut at whitespace (counts add up across whitespace), a step each.
 */
export function* countSteps(text: string, count: CountTokens): Steps<number> {
  if (text.length <= COUNT_AT_ONCE_CHARS) return count(text);
  let tokens = 0;
  for (let from = 0; from < text.length; ) {
    const to = pieceEnd(text, from);
    tokens += count(text.slice(from, to));
    from = to;
    yield;
  }
  return tokens;
}

/** Where a piece of `text` from `from` ends: after the last whitespace within reach, else at a code point boundary. */
function pieceEnd(text: string, from: number): number {
  const reach = from + COUNT_AT_ONCE_CHARS;
  if (reach >= text.length) return text.length;
  for (let at = reach; at > from + COUNT_AT_ONCE_CHARS / 2; at -= 1) if (/\s/.test(text[at - 1] ?? '')) return at;
  return isLowSurrogate(text.charCodeAt(reach)) ? reach + 1 : reach;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** A word with the one whitespace character after it, or a whitespace character alone (as split after each). */
const WORD = /[^\s]*\s|[^\s]+$/gu;

/** Token counts add up across whitespace, so words are counted once each (no quadratic re-counting). */
function* splitLine(
  line: string,
  budget: number,
  count: CountTokens,
): Steps<{ tokens: number; partialText: string }[]> {
  const parts: { tokens: number; partialText: string }[] = [];
  let current = '';
  let currentTokens = 0;
  const flush = () => {
    if (current.trim() !== '') parts.push({ tokens: currentTokens, partialText: current });
    current = '';
    currentTokens = 0;
  };
  for (const [word] of line.matchAll(WORD)) {
    const tokens = yield* countSteps(word, count);
    if (tokens > budget) {
      flush();
      parts.push(...(yield* splitWord(word, budget, count)));
    } else {
      if (currentTokens + tokens > budget) flush();
      current += word;
      currentTokens += tokens;
    }
    yield;
  }
  flush();
  return parts;
}

/**
 * Cuts a word that alone exceeds `budget` into the longest prefixes that fit, at code point
 * boundaries: the prefix length grows by doubling, then a binary search, so each count stays near
 * the size of one piece however long the word is. A step per piece.
 */
function* splitWord(
  word: string,
  budget: number,
  count: CountTokens,
): Steps<{ tokens: number; partialText: string }[]> {
  const parts: { tokens: number; partialText: string }[] = [];
  let from = 0;
  while (from < word.length) {
    const fits = (length: number) => count(word.slice(from, codePointEnd(word, from + length))) <= budget;
    let low = 1;
    let high = 1;
    while (from + high < word.length && fits(high)) {
      low = high;
      high = Math.min(high * 2, word.length - from);
    }
    if (fits(high)) low = high;
    else high -= 1;
    while (low < high) {
      const mid = Math.ceil((low + high) / 2);
      if (fits(mid)) low = mid;
      else high = mid - 1;
    }
    const to = codePointEnd(word, from + low);
    const text = word.slice(from, to);
    parts.push({ tokens: count(text), partialText: text });
    from = to;
    yield;
  }
  return parts;
}

/** `at`, moved past the low half of a surrogate pair it would split. */
function codePointEnd(text: string, at: number): number {
  return at < text.length && isLowSurrogate(text.charCodeAt(at)) ? at + 1 : at;
}
