import type { CountTokens } from './types.js';

/** A word piece of a multilingual subword vocabulary covers about this many characters of a word. */
const CHARACTERS_PER_WORD_PIECE = 6;
const WORD = /[\p{L}\p{M}\p{N}\p{Co}]+/gu;
/** One character of a script written without spaces is about one token. */
const UNSPACED_CHARACTER =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/gu;
const PUNCTUATION = /[^\s\p{L}\p{M}\p{N}\p{Co}]/gu;

/**
 * Tokens of a text counted without a tokenizer, for sizing the chunks of an
 * index without a model (docs/retrieval.md#lexical-only-indexes): a word is
 * one token per six characters (at least one), a character of an unspaced
 * script one, a punctuation mark or symbol one. Close enough to a subword
 * tokenizer for chunk sizes; nothing is embedded.
 */
export const approximateTokenCount: CountTokens = (text) => {
  let count = (text.match(PUNCTUATION) ?? []).length;
  for (const word of text.match(WORD) ?? []) {
    const unspaced = (word.match(UNSPACED_CHARACTER) ?? []).length;
    const rest = [...word].length - unspaced;
    count += unspaced + (rest > 0 ? Math.ceil(rest / CHARACTERS_PER_WORD_PIECE) : 0);
  }
  return count;
};
