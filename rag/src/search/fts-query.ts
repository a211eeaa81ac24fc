/**
 * Builds FTS5 MATCH expressions from user text that can never be an FTS5
 * syntax error (docs/retrieval.md#lexical-leg): every piece of user text ends up inside
 * a double-quoted FTS5 string with `"` doubled, so operators (`AND`, `OR`,
 * `NOT`, `NEAR`), column filters (`:`), prefixes (`*`), initial-token markers
 * (`^`), parentheses and hyphens are plain text.
 */

/** docs/retrieval.md#lexical-leg: the whole query as one phrase (trigram) or an OR of its terms (unicode61). */
export type LexicalStrategy = 'phrase' | 'or-terms';

export type FtsQuery =
  /** Nothing searchable is left (only spaces or punctuation). */
  | { readonly kind: 'empty' }
  /** Shorter than a trigram: FTS5 cannot match it, the caller scans with LIKE. */
  | { readonly kind: 'short'; readonly text: string }
  | {
      readonly kind: 'match';
      readonly expression: string;
      readonly terms: readonly string[];
      /**
       * Phrases of several words: an AND of the two longest words, a superset
       * of the phrase's matches that FTS5 finds far faster than the whole
       * phrase (every trigram's position list would be read); the caller then
       * keeps the chunks that contain the exact phrase.
       */
      readonly narrowing?: string;
    };

/** The trigram tokenizer indexes 3-character windows; a shorter string matches nothing. */
export const TRIGRAM_LENGTH = 3;
/** OR queries keep at most this many distinct terms (a pasted paragraph must not become a 500-way OR). */
export const MAX_OR_TERMS = 32;

/** What unicode61 keeps as token characters: letters, numbers and private-use characters. */
const TOKEN_CHARACTER = /[\p{L}\p{N}\p{Co}]/u;
/** Control characters (NUL included) never reach SQLite; they become spaces. */
const CONTROL = /\p{Cc}/gu;

export interface FtsQueryOptions {
  readonly strategy: LexicalStrategy;
  /** Terms shorter than this are dropped from OR queries (3 with the trigram tokenizer, 1 with unicode61). */
  readonly minTermLength: number;
}

export function buildFtsQuery(text: string, options: FtsQueryOptions): FtsQuery {
  const cleaned = text.replace(CONTROL, ' ').trim().replace(/\s+/gu, ' ');
  if (!TOKEN_CHARACTER.test(cleaned)) return { kind: 'empty' };
  if (options.strategy === 'phrase') {
    // Substring semantics: a phrase shorter than one trigram is handed to the LIKE scan.
    if ([...cleaned].length < TRIGRAM_LENGTH) return { kind: 'short', text: cleaned };
    const words = [...new Set(cleaned.split(' '))]
      .filter((word) => [...word].length >= TRIGRAM_LENGTH)
      .sort((a, b) => [...b].length - [...a].length);
    const expression = quote(cleaned);
    if (!cleaned.includes(' ') || words.length === 0) return { kind: 'match', expression, terms: [cleaned] };
    return { kind: 'match', expression, terms: [cleaned], narrowing: words.slice(0, 2).map(quote).join(' AND ') };
  }
  const terms = [...new Set(cleaned.split(' '))]
    .filter((term) => TOKEN_CHARACTER.test(term) && [...term].length >= options.minTermLength)
    .slice(0, MAX_OR_TERMS);
  if (terms.length === 0) return { kind: 'short', text: cleaned };
  return { kind: 'match', expression: terms.map(quote).join(' OR '), terms };
}

/** An FTS5 string: double quotes around, inner double quotes doubled (sqlite.org/fts5.html §3.1). */
export function quote(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}
