import { pageUint16, pageUint32 } from '../vectors/page-arrays.js';
import { compareTerms, WordPostings } from './word-postings.js';
import { WORD_COLUMN_WEIGHTS, widened } from './word-postings-reader.js';

/** FTS5's tokens of one row, one list per column of the word table (title field, heading, body). */
export type RowTokens = readonly (readonly string[])[];

/**
 * The postings of rows whose tokens FTS5 made (the word table's own
 * tokenizer, docs/retrieval.md#snapshots): what the word table holds for
 * those rows, as `readWordPostings` would read it. Row `i` is `rows[i]`;
 * each term's rows are listed in the order they are met, ascending.
 */
export function postingsFromTokens(rows: readonly RowTokens[]): WordPostings {
  const byTerm = new Map<string, Map<number, number>>();
  const lengths = pageUint32(rows.length);
  rows.forEach((columns, row) => {
    columns.forEach((tokens, column) => {
      const weight = WORD_COLUMN_WEIGHTS[column] ?? 0;
      for (const token of tokens) {
        const frequencies = byTerm.get(token) ?? new Map<number, number>();
        frequencies.set(row, (frequencies.get(row) ?? 0) + weight);
        byTerm.set(token, frequencies);
      }
      lengths[row] = (lengths[row] as number) + tokens.length;
    });
  });
  const terms = [...byTerm.keys()].sort(compareTerms);
  const offsets = pageUint32(terms.length + 1);
  terms.forEach((term, t) => {
    offsets[t + 1] = (offsets[t] as number) + (byTerm.get(term)?.size ?? 0);
  });
  const total = offsets[terms.length] ?? 0;
  const postingRows = pageUint32(total);
  let frequencies: Uint16Array | Uint32Array = pageUint16(total);
  let at = 0;
  for (const term of terms) {
    for (const [row, frequency] of byTerm.get(term) ?? []) {
      if (frequency > 0xffff && frequencies instanceof Uint16Array) frequencies = widened(frequencies);
      postingRows[at] = row;
      frequencies[at] = frequency;
      at += 1;
    }
  }
  return new WordPostings({ terms, offsets, rows: postingRows, frequencies, lengths });
}
