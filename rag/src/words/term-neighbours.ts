import { editDistance } from '../lexical/typos.js';
import type { WordPostings } from './word-postings.js';

/** A term of one segment's word list and how many edits it is from the term asked for. */
export interface NearTerm {
  readonly term: string;
  readonly distance: number;
}

/** Marks the start and end of a term, so that its first and last characters are in two bigrams each. */
const EDGE = '\u0000';

/**
 * A segment's word list indexed by character bigrams, to find the terms
 * within a few edits of a misspelt one without measuring the distance to
 * every term (docs/retrieval.md#typos). The filter loses nothing: one edit
 * (a character inserted, deleted or replaced, or two adjacent ones swapped)
 * touches at most three bigrams of a term padded at both ends, so a term
 * within `k` edits still holds all but at most `3k` of the distinct bigrams
 * of the term asked for. Candidates are measured most shared bigrams first,
 * and the bar rises with each nearer term found.
 */
export class TermNeighbours {
  /** Per bigram, the indices of the terms holding it (each once). */
  readonly #termsWith = new Map<string, number[]>();
  /** Shared bigrams per term for the query being answered; reset after each. */
  readonly #shared: Uint16Array;

  constructor(readonly terms: readonly string[]) {
    this.#shared = new Uint16Array(terms.length);
    for (const [index, term] of terms.entries()) {
      for (const bigram of bigramsOf(term)) {
        const holding = this.#termsWith.get(bigram);
        if (holding === undefined) this.#termsWith.set(bigram, [index]);
        else holding.push(index);
      }
    }
  }

  /**
   * The terms nearest to `token` within `maxEdits` (the smallest distance found, every term at it), none
   * when no term is that near. `token` itself is not a neighbour: a term the list holds needs no correction.
   */
  nearest(token: string, maxEdits: number): NearTerm[] {
    const bigrams = bigramsOf(token);
    const touched: number[] = [];
    for (const bigram of bigrams) {
      for (const index of this.#termsWith.get(bigram) ?? []) {
        if (this.#shared[index] === 0) touched.push(index);
        this.#shared[index] = (this.#shared[index] as number) + 1;
      }
    }
    // Most shared bigrams first: the nearest terms are found early, and the bar below rises with them.
    const byShared = Array.from({ length: bigrams.size + 1 }, (): number[] => []);
    for (const index of touched) {
      byShared[this.#shared[index] as number]?.push(index);
      this.#shared[index] = 0;
    }
    const length = [...token].length;
    let best = maxEdits + 1;
    let nearest: NearTerm[] = [];
    for (let shared = bigrams.size; shared >= 0; shared -= 1) {
      const budget = Math.min(best, maxEdits);
      // A term within `budget` edits shares at least this many bigrams.
      if (shared < bigrams.size - 3 * budget) break;
      // Sharing none (a short term, two edits: `renma` and `ernam`) is any term no bigram reached.
      const candidates = shared > 0 ? (byShared[shared] ?? []) : untouched(this.terms.length, touched);
      for (const index of candidates) {
        const term = this.terms[index] ?? '';
        const within = Math.min(best, maxEdits);
        if (term === token || Math.abs([...term].length - length) > within) continue;
        const distance = editDistance(token, term, within);
        if (distance < best) {
          best = distance;
          nearest = [{ term, distance }];
        } else if (distance === best && distance <= maxEdits) {
          nearest.push({ term, distance });
        }
      }
    }
    return nearest;
  }
}

function untouched(count: number, touched: readonly number[]): number[] {
  const reached = new Set(touched);
  const rest: number[] = [];
  for (let index = 0; index < count; index += 1) if (!reached.has(index)) rest.push(index);
  return rest;
}

/** The distinct bigrams of a term padded at both ends (a one-character term has two). */
function bigramsOf(term: string): Set<string> {
  const chars = [EDGE, ...term, EDGE];
  const bigrams = new Set<string>();
  for (let i = 0; i + 1 < chars.length; i += 1) bigrams.add(`${chars[i]}${chars[i + 1]}`);
  return bigrams;
}

/** Built once per segment's postings, at the first typo that needs it: postings never change. */
const neighboursOf = new WeakMap<WordPostings, TermNeighbours>();

export function termNeighbours(postings: WordPostings): TermNeighbours {
  let neighbours = neighboursOf.get(postings);
  if (neighbours === undefined) {
    neighbours = new TermNeighbours(postings.terms);
    neighboursOf.set(postings, neighbours);
  }
  return neighbours;
}
