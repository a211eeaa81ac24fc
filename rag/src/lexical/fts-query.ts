import type { QueryTerm, QueryTerms } from './query-terms.js';

/**
 * FTS5 MATCH expressions from query terms, built so that no user text can be
 * FTS5 syntax (docs/retrieval.md#lexical-leg): every term is a double-quoted
 * FTS5 string with inner `"` doubled, so `AND`, `OR`, `NOT`, `NEAR`, `:`, `*`,
 * `^`, parentheses and hyphens are plain text.
 * The only operators are the ones written here: `OR` between terms and `*`
 * after a prefix term.
 */

/** An FTS5 string: double quotes around, inner double quotes doubled. */
export function quote(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}

export function termExpression(term: QueryTerm): string {
  return term.prefix ? `${quote(term.text)}*` : quote(term.text);
}

/** Any of the expressions (OR semantics: natural-language queries rarely have every word in one chunk). */
export function anyOf(expressions: readonly string[]): string {
  return expressions.join(' OR ');
}

/**
 * The query's terms as one phrase, when it has two or more (a single term is
 * the word tier itself): `rotate signing keys`, `DEC-0054` as `"DEC 0054"`,
 * `黑豹队` as its n-grams in a row. Only the last term may be a prefix in FTS5.
 */
export function phraseExpression(query: QueryTerms, maxTerms: number): string | undefined {
  const { sequence } = query;
  if (sequence.length < 2 || sequence.length > maxTerms) return undefined;
  const last = sequence[sequence.length - 1];
  return `${quote(sequence.map((term) => term.text).join(' '))}${last?.prefix ? '*' : ''}`;
}
