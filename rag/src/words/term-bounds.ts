import type { TermRange, WordPostings } from './word-postings.js';

/**
 * What bounds a term's BM25 contribution in any row of a segment, whatever
 * the average length: its largest frequency, and the least of D/f over its
 * postings (D the row's length, f the term's frequency there).
 */
interface TermBound {
  readonly maxFrequency: number;
  readonly minLengthPerFrequency: number;
}

/** Per segment, the bounds of the terms a search has asked about: a segment is immutable, so they never change. */
const bounds = new WeakMap<WordPostings, Map<number, TermBound>>();

/**
 * An upper bound of `f/(f + norm)` over the rows of the segment holding the
 * phrase (norm = k1·(1 − b + b·D/avgdl), f the phrase's frequency: its terms'
 * summed). From `norm/f = k1·(1 − b)/f + k1·b·(D/f)/avgdl`: the phrase's f is
 * at most the sum of its terms' largest, and its f/D at most the sum of its
 * terms' largest f/D. Each term costs one walk of its postings, once per
 * segment.
 */
export function saturationBound(
  postings: WordPostings,
  phrase: TermRange,
  averageLength: number,
  k1: number,
  b: number,
): number {
  let maxFrequency = 0;
  let frequencyPerLength = 0;
  for (let term = phrase.first; term < phrase.end; term += 1) {
    const bound = termBound(postings, term);
    maxFrequency += bound.maxFrequency;
    frequencyPerLength += 1 / bound.minLengthPerFrequency;
  }
  const normPerFrequency = (k1 * (1 - b)) / maxFrequency + (k1 * b) / frequencyPerLength / averageLength;
  const saturation = 1 / (1 + normPerFrequency);
  // No postings, or lengths that make no number: the trivial bound (f/(f + norm) < 1 for any norm > 0).
  return saturation >= 0 && saturation <= 1 ? saturation : 1;
}

function termBound(postings: WordPostings, term: number): TermBound {
  let terms = bounds.get(postings);
  if (terms === undefined) {
    terms = new Map();
    bounds.set(postings, terms);
  }
  let bound = terms.get(term);
  if (bound === undefined) {
    const { offsets, rows, frequencies, lengths } = postings;
    let maxFrequency = 0;
    let minLengthPerFrequency = Number.POSITIVE_INFINITY;
    for (let i = offsets[term] as number; i < (offsets[term + 1] as number); i += 1) {
      const f = frequencies[i] as number;
      const row = rows[i] as number;
      const lengthPerFrequency = (lengths[row] as number) / f;
      if (f > maxFrequency) maxFrequency = f;
      if (lengthPerFrequency < minLengthPerFrequency) minLengthPerFrequency = lengthPerFrequency;
    }
    bound = { maxFrequency, minLengthPerFrequency };
    terms.set(term, bound);
  }
  return bound;
}
