import { runsOf, TOKEN } from '../lexical/scripts.js';
import type { CountTokens } from './types.js';

/** A word piece of a multilingual subword vocabulary covers about this many characters of a word. */
const CHARACTERS_PER_WORD_PIECE = 6;
const PUNCTUATION = /[^\s\p{L}\p{M}\p{N}\p{Co}]/gu;

/**
 * Tokens of a text counted without a tokenizer, for sizing the chunks of an
 * index without a model (docs/retrieval.md#lexical-only-indexes): a word is
 * one token per six characters (at least one), a character of a script
 * written without spaces one, a punctuation mark or symbol one. Close enough
 * to a subword tokenizer for chunk sizes; nothing is embedded.
 */
export const approximateTokenCount: CountTokens = (text) => {
  let count = (text.match(PUNCTUATION) ?? []).length;
  for (const token of text.match(TOKEN) ?? []) {
    for (const run of runsOf(token)) {
      count +=
        run.kind === 'word' ? Math.ceil([...run.units.join('')].length / CHARACTERS_PER_WORD_PIECE) : run.units.length;
    }
  }
  return count;
};
