/** The arrays of a WordPostings as plain data (what a worker posts; the typed arrays are in shared memory). */
export type WordPostingsParts = Pick<WordPostings, 'terms' | 'offsets' | 'rows' | 'frequencies' | 'lengths'>;

/** A run of terms `[first, end)`: one term, the terms a prefix matches, or none (empty). */
export interface TermRange {
  readonly first: number;
  readonly end: number;
}

/**
 * The word table's index held in memory (docs/retrieval.md#lexical-leg): for
 * every term FTS5 holds, the rows it occurs in and its weighted frequency
 * there, and every row's length in tokens. Compressed sparse rows: term `t`'s
 * postings are `[offsets[t], offsets[t + 1])` of `rows` and `frequencies`,
 * in ascending row order (`sortPostingsByRow`).
 * A row is a row of its segment's vector matrix (`chunkIds[row]` is its
 * chunk), so a vault or namespace filter is the matrix's row ranges
 * (docs/retrieval.md#snapshots). Immutable once built: the states of the
 * index that share a segment differ only in which rows are deleted.
 */
export class WordPostings {
  /** FTS5's terms in FTS5's order (UTF-8 byte order), strictly ascending. */
  readonly terms: readonly string[];
  readonly offsets: Uint32Array;
  readonly rows: Uint32Array;
  /** Per posting: the column weights summed over the term's occurrences in the row (bm25's f). */
  readonly frequencies: Uint16Array | Uint32Array;
  /** Per row: its tokens in every column, what FTS5 records as the row's size (bm25's D). */
  readonly lengths: Uint32Array;
  #seen: Uint8Array | undefined;
  #held: Uint16Array | undefined;

  constructor(parts: WordPostingsParts) {
    const { terms, offsets, rows, frequencies, lengths } = parts;
    if (offsets.length !== terms.length + 1 || offsets[terms.length] !== rows.length) {
      throw new RangeError('postings: the offsets do not cover the rows');
    }
    if (frequencies.length !== rows.length) throw new RangeError('postings: one frequency per row entry');
    this.terms = terms;
    this.offsets = offsets;
    this.rows = rows;
    this.frequencies = frequencies;
    this.lengths = lengths;
  }

  /** Rows of the matrix (chunks of the snapshot). */
  get rowCount(): number {
    return this.lengths.length;
  }

  /** Bytes held by the typed arrays (the term strings come on top). */
  get byteLength(): number {
    return this.offsets.byteLength + this.rows.byteLength + this.frequencies.byteLength + this.lengths.byteLength;
  }

  /** The term as FTS5 holds it (empty when it is not there), or every term it begins when `prefix`. */
  range(token: string, prefix: boolean): TermRange {
    const first = lowerBound(this.terms, token);
    let end = first;
    if (prefix) {
      while (end < this.terms.length && this.terms[end]?.startsWith(token)) end += 1;
    } else if (this.terms[first] === token) {
      end = first + 1;
    }
    return { first, end };
  }

  /**
   * Rows holding any term of the range, leaving out rows marked in `deleted`:
   * what FTS5 counts for the IDF of that phrase. For a single term,
   * `deletedPostings` (its postings in deleted rows, per term) saves the walk.
   */
  documentFrequency(range: TermRange, deleted?: Uint8Array, deletedPostings?: Uint32Array): number {
    if (range.end - range.first === 1 && (deleted === undefined || deletedPostings !== undefined)) {
      return this.postingCount(range) - (deletedPostings?.[range.first] ?? 0);
    }
    if (range.end === range.first) return 0;
    // A mark per row, cleared again after the count: a prefix can cover hundreds of thousands of postings.
    this.#seen ??= new Uint8Array(this.rowCount);
    const seen = this.#seen;
    const start = this.offsets[range.first] ?? 0;
    const end = this.offsets[range.end] ?? 0;
    let count = 0;
    for (let i = start; i < end; i += 1) {
      const row = this.rows[i] as number;
      if (seen[row] === 0 && deleted?.[row] !== 1) {
        seen[row] = 1;
        count += 1;
      }
    }
    for (let i = start; i < end; i += 1) seen[this.rows[i] as number] = 0;
    return count;
  }

  /**
   * Whether some row holds a term of every range, deleted or not: the rows
   * of the first range, narrowed by each next one in turn (rarest first is
   * cheapest), until none is left.
   */
  someRowHoldsAll(ranges: readonly TermRange[]): boolean {
    const [first, ...rest] = ranges;
    if (first === undefined) return false;
    // Per row, how many ranges in a row it has held so far; back to 0 before returning.
    this.#held ??= new Uint16Array(this.rowCount);
    const held = this.#held;
    const firstStart = this.offsets[first.first] ?? 0;
    const firstEnd = this.offsets[first.end] ?? 0;
    for (let i = firstStart; i < firstEnd; i += 1) held[this.rows[i] as number] = 1;
    let left = firstEnd - firstStart;
    for (const [k, range] of rest.entries()) {
      if (left === 0) break;
      left = 0;
      const end = this.offsets[range.end] ?? 0;
      for (let i = this.offsets[range.first] ?? 0; i < end; i += 1) {
        const row = this.rows[i] as number;
        if (held[row] === k + 1) {
          held[row] = k + 2;
          left += 1;
        }
      }
    }
    for (let i = firstStart; i < firstEnd; i += 1) held[this.rows[i] as number] = 0;
    return left > 0;
  }

  /** Postings of the terms of the range (rows counted once per term). */
  postingCount(range: TermRange): number {
    return (this.offsets[range.end] ?? 0) - (this.offsets[range.first] ?? 0);
  }
}

/**
 * Code-point order of two strings, which is the UTF-8 byte order FTS5 keeps
 * its terms in: UTF-16 code units compare the same way except that
 * surrogates (U+10000 and above) must sort after U+E000–U+FFFF.
 */
export function compareTerms(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i += 1) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

function codePointRank(unit: number): number {
  if (unit >= 0xd800 && unit < 0xe000) return unit + 0x2000;
  return unit >= 0xe000 ? unit - 0x800 : unit;
}

/** The first index whose term is not below `token`. */
export function lowerBound(terms: readonly string[], token: string): number {
  let low = 0;
  let high = terms.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compareTerms(terms[middle] ?? '', token) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}
