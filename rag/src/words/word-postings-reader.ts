import type Database from 'better-sqlite3';
import { RagError } from '../errors/rag-error.js';
import { COLUMN_WEIGHTS } from '../store/fts-column-weights.js';
import { pageUint16, pageUint32 } from '../vectors/page-arrays.js';
import { sortPostingsByRow } from './row-order.js';
import { compareTerms, WordPostings, type WordPostingsParts } from './word-postings.js';

/**
 * fts5vocab views of the word table (docs/retrieval.md#lexical-leg): its terms
 * with the number of rows holding each, and every occurrence (term, row,
 * column). They live in the connection's temp schema and read whatever
 * transaction the connection holds.
 */
export const WORD_VOCABULARY_SQL = `
CREATE VIRTUAL TABLE IF NOT EXISTS temp.word_terms USING fts5vocab (main, chunks_words, 'row');
CREATE VIRTUAL TABLE IF NOT EXISTS temp.word_occurrences USING fts5vocab (main, chunks_words, 'instance');`;

/** The word table's columns in order, with their BM25 weights (integers: a row's f is a sum of them). */
export const WORD_COLUMN_WEIGHTS: readonly number[] = [
  COLUMN_WEIGHTS.title,
  COLUMN_WEIGHTS.heading,
  COLUMN_WEIGHTS.body,
];

/**
 * The occurrences of a run of terms, `row id × 4 + column` each, in FTS5's
 * order (term, row, column, position), as one string: SQLite walks them in C,
 * where handing ~16 million rows (100k chunks) to JavaScript one by one costs
 * about four times as much, and one statement per term costs ~20 µs a term.
 */
const OCCURRENCE_LIST = `SELECT group_concat(doc * 4 + CASE col WHEN 'body' THEN 2 WHEN 'title' THEN 0 ELSE 1 END, ' ')
  FROM temp.word_occurrences`;
const OCCURRENCES_SQL = `${OCCURRENCE_LIST} WHERE term >= ? AND term <= ?`;
/**
 * The zero-length term's occurrences. FTS5 indexes one where folding empties a token (a lone
 * combining mark under remove_diacritics 2) and fts5vocab reports it as NULL, which no range
 * reaches; this scans the view, so it runs only for an index that holds that term.
 */
const EMPTY_TERM_OCCURRENCES_SQL = `${OCCURRENCE_LIST} WHERE term IS NULL`;
/** Occurrences read by one statement: some 15 MB of text at a time. */
const OCCURRENCES_PER_READ = 1 << 21;

interface TermCounts {
  readonly terms: string[];
  /** Rows holding each term. */
  readonly documents: number[];
  /** Occurrences of each term in all rows. */
  readonly occurrences: number[];
}

/**
 * Reads the word table's postings through fts5vocab, on a connection that
 * holds the read transaction to read and has run WORD_VOCABULARY_SQL. `rows`
 * gives the order of the rows (`rows[i]` is the chunk id of row i); every
 * chunk of the word table must be there. Throws when FTS5's view is not what
 * this reads (terms out of order, counts that disagree).
 */
export function readWordPostings(db: Database.Database, rows: Float64Array): WordPostings {
  if (!WORD_COLUMN_WEIGHTS.every((w) => Number.isInteger(w) && w > 0)) {
    throw new RagError('ERR_INDEX_SCHEMA', 'the in-memory word index needs positive integer column weights');
  }
  const { terms, documents, occurrences } = termCounts(db);
  const offsets = pageUint32(terms.length + 1);
  documents.forEach((count, t) => {
    offsets[t + 1] = (offsets[t] ?? 0) + count;
  });
  const builder = new PostingsBuilder(offsets[terms.length] ?? 0, rows);
  const read = db.prepare(OCCURRENCES_SQL).pluck();
  for (let first = 0; first < terms.length; ) {
    let last = first;
    let count = occurrences[first] ?? 0;
    const empty = terms[first] === '';
    while (!empty && last + 1 < terms.length && count < OCCURRENCES_PER_READ) count += occurrences[++last] ?? 0;
    const found = empty ? db.prepare(EMPTY_TERM_OCCURRENCES_SQL).pluck().get() : read.get(terms[first], terms[last]);
    const list = String(found ?? '');
    let position = 0;
    for (let t = first; t <= last; t += 1) {
      position = builder.addTerm(list, position, occurrences[t] ?? 0);
      if (builder.postings !== offsets[t + 1]) {
        throw new RagError('ERR_INDEX_SCHEMA', `fts5vocab counts ${terms[t]} in another number of rows than it lists`);
      }
    }
    if (position < list.length)
      throw new RagError('ERR_INDEX_SCHEMA', 'fts5vocab listed more occurrences than it counts');
    first = last + 1;
  }
  const arrays = builder.arrays();
  sortPostingsByRow({ offsets, ...arrays });
  return new WordPostings({ terms, offsets, ...arrays });
}

function termCounts(db: Database.Database): TermCounts {
  const counts: TermCounts = { terms: [], documents: [], occurrences: [] };
  for (const value of db.prepare('SELECT term, doc, cnt FROM temp.word_terms').raw().iterate()) {
    const [vocabularyTerm, documents, occurrences] = value as [string | null, number, number];
    // NULL is the zero-length term (EMPTY_TERM_OCCURRENCES_SQL): '' sorts first, as FTS5 keeps it.
    const term = vocabularyTerm ?? '';
    const previous = counts.terms[counts.terms.length - 1];
    if (previous !== undefined && compareTerms(previous, term) >= 0) {
      throw new RagError('ERR_INDEX_SCHEMA', 'fts5vocab listed the word table terms out of order');
    }
    counts.terms.push(term);
    counts.documents.push(documents);
    counts.occurrences.push(occurrences);
  }
  return counts;
}

/** Fills the posting arrays term by term from the occurrence lists. */
class PostingsBuilder {
  private readonly rows: Uint32Array;
  private frequencies: Uint16Array | Uint32Array;
  private readonly lengths: Uint32Array;
  private readonly rowOf: (chunkId: number) => number;
  /** Postings filled so far. */
  postings = 0;

  constructor(total: number, chunkIds: Float64Array) {
    this.rows = pageUint32(total);
    this.frequencies = pageUint16(total);
    this.lengths = pageUint32(chunkIds.length);
    this.rowOf = rowLookup(chunkIds);
  }

  /** Reads `count` occurrences of one term from `list` at `position`; returns the position after them. */
  addTerm(list: string, start: number, count: number): number {
    const { rows, lengths } = this;
    let position = start;
    let lastDocument = -1;
    for (let k = 0; k < count; k += 1) {
      let value = 0;
      // charCodeAt past the end is NaN, which ends the number too.
      for (let code = list.charCodeAt(position); code >= 48 && code <= 57; code = list.charCodeAt(++position)) {
        value = value * 10 + (code - 48);
      }
      position += 1;
      const document = Math.floor(value / 4);
      const weight = WORD_COLUMN_WEIGHTS[value - document * 4] ?? 0;
      const row = this.rowOf(document);
      if (row < 0) throw new RagError('ERR_INDEX_SCHEMA', `the word table holds row ${document}, not a chunk`);
      lengths[row] = (lengths[row] as number) + 1;
      if (document !== lastDocument) {
        rows[this.postings] = row;
        this.frequencies[this.postings] = weight;
        this.postings += 1;
        lastDocument = document;
        continue;
      }
      const sum = (this.frequencies[this.postings - 1] as number) + weight;
      if (sum > 0xffff && this.frequencies instanceof Uint16Array) this.frequencies = widened(this.frequencies);
      this.frequencies[this.postings - 1] = sum;
    }
    return position;
  }

  arrays(): Pick<WordPostingsParts, 'rows' | 'frequencies' | 'lengths'> {
    return { rows: this.rows, frequencies: this.frequencies, lengths: this.lengths };
  }
}

/** Row of a chunk id (-1: none): a table when the ids are dense enough, else a map. */
function rowLookup(chunkIds: Float64Array): (chunkId: number) => number {
  const largest = chunkIds.reduce((max, id) => Math.max(max, id), 0);
  if (largest <= 4 * chunkIds.length + 1024) {
    const table = new Int32Array(largest + 1).fill(-1);
    chunkIds.forEach((id, row) => {
      table[id] = row;
    });
    return (id) => (id <= largest ? (table[id] ?? -1) : -1);
  }
  const map = new Map<number, number>();
  chunkIds.forEach((id, row) => {
    map.set(id, row);
  });
  return (id) => map.get(id) ?? -1;
}

/** The frequencies as 32-bit numbers, in shared memory like every posting array. */
export function widened(frequencies: Uint16Array): Uint32Array {
  const wide = pageUint32(frequencies.length);
  wide.set(frequencies);
  return wide;
}
