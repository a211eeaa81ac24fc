import { GRAM_LENGTH, type RunKind, runsOf, TOKEN } from './scripts.js';

/** A query text longer than this many distinct terms is cut: an input bound, the same for every index size. */
export const MAX_QUERY_TERMS = 64;

export interface QueryTerm {
  /** The term as the word table holds it (before the tokenizer folds case, diacritics and suffixes). */
  readonly text: string;
  /** Matches every indexed term that starts with `text` (an unspaced run shorter than its n-gram). */
  readonly prefix: boolean;
  readonly kind: RunKind;
}

export interface QueryTerms {
  /** Distinct terms in query order, at most MAX_QUERY_TERMS. */
  readonly terms: readonly QueryTerm[];
  /** The query's terms in order, repeats kept: the phrase the text forms. */
  readonly sequence: readonly QueryTerm[];
}

export interface QueryTermOptions {
  /** False when the word table holds unspaced runs whole (the fallback layout): a run is one term. */
  readonly ngrams: boolean;
}

/**
 * The terms of a query (docs/retrieval.md#lexical-leg): its tokens, split on
 * every character that is not a letter, mark, number or private-use character
 * (spaces, punctuation, symbols, FTS5 syntax), so `(IL-6)` gives `IL` and `6`
 * and `cells.` gives `cells`. An unspaced run gives its n-grams, as the index
 * holds them; a run shorter than one n-gram is a prefix term.
 */
export function queryTerms(query: string, options: QueryTermOptions): QueryTerms {
  const sequence: QueryTerm[] = [];
  for (const token of query.match(TOKEN) ?? []) {
    for (const run of runsOf(token)) {
      const whole = run.units.join('');
      if (run.kind === 'word' || !options.ngrams) {
        sequence.push({ text: whole, prefix: false, kind: run.kind });
        continue;
      }
      const n = GRAM_LENGTH[run.kind];
      if (run.units.length < n) {
        sequence.push({ text: whole, prefix: true, kind: run.kind });
        continue;
      }
      for (let i = 0; i + n <= run.units.length; i += 1) {
        sequence.push({ text: run.units.slice(i, i + n).join(''), prefix: false, kind: run.kind });
      }
    }
  }
  const seen = new Set<string>();
  const terms = sequence.filter((term) => {
    // The tokenizer folds case, so `Keys` and `keys` are one term.
    const key = `${term.prefix ? '*' : ' '}${term.text.toLowerCase()}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return { terms: terms.slice(0, MAX_QUERY_TERMS), sequence };
}
