/**
 * Typo tolerance (docs/retrieval.md#typos), the pure part: which query words
 * are worth correcting, how far a correction may be, and the closest word of
 * some text. The lexical leg decides when to correct and where the candidate
 * text comes from (the chunks the trigram table finds for the word).
 */
import { runsOf, TOKEN } from './scripts.js';

/** Shorter words are too ambiguous to correct: most three-letter strings are one edit from several words. */
export const MIN_CORRECTED_LENGTH = 4;

/**
 * The edits a word of this many characters may be from its correction: one up to five characters, two from
 * six on (the "AUTO" fuzziness of Elasticsearch's match query, minus its exact-match band, which
 * MIN_CORRECTED_LENGTH covers).
 */
export function maxEditsFor(length: number): number {
  return length < 6 ? 1 : 2;
}

/** Characters, case folded, marks kept with their letters (é and e differ by one edit). */
function characters(word: string): string[] {
  return [...word.normalize('NFC').toLowerCase()];
}

/** Whether a query word could be corrected at all: a word of a spaced script, long enough, without digits. */
export function isCorrectable(word: string): boolean {
  return isPlainWord(word, MIN_CORRECTED_LENGTH);
}

/** One word of a spaced script, at least `minLength` characters, letters without digits (no identifier). */
function isPlainWord(word: string, minLength: number): boolean {
  const runs = runsOf(word);
  return (
    runs.length === 1 &&
    runs[0]?.kind === 'word' &&
    characters(word).length >= minLength &&
    /\p{L}/u.test(word) &&
    !/\p{N}/u.test(word)
  );
}

/** The word's character trigrams, folded, in order and without repeats (the trigram table's terms for it). */
export function trigramsOf(word: string): string[] {
  const chars = characters(word);
  const grams = new Set<string>();
  for (let i = 0; i + 3 <= chars.length; i += 1) grams.add(chars.slice(i, i + 3).join(''));
  return [...grams];
}

/**
 * Optimal string alignment distance (Damerau–Levenshtein with adjacent
 * transpositions: `stahs` is one edit from `stash`), or `max + 1` as soon as
 * it must exceed `max`.
 */
export function editDistance(a: string, b: string, max: number): number {
  const x = characters(a);
  const y = characters(b);
  if (Math.abs(x.length - y.length) > max) return max + 1;
  let beforePrevious: number[] = [];
  let previous = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i += 1) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= y.length; j += 1) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      let value = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1]) {
        value = Math.min(value, (beforePrevious[j - 2] ?? 0) + 1);
      }
      current.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > max) return max + 1;
    beforePrevious = previous;
    previous = current;
  }
  return Math.min(previous[y.length] ?? max + 1, max + 1);
}

/**
 * The words of `texts` (folded) nearest to `word` within its edit budget, all
 * at the same smallest distance; none when the word itself occurs.
 */
export function nearestWords(word: string, texts: readonly string[]): string[] {
  const target = characters(word).join('');
  const max = maxEditsFor(target.length);
  let best = max + 1;
  let nearest = new Set<string>();
  for (const text of texts) {
    for (const token of text.match(TOKEN) ?? []) {
      const candidate = characters(token).join('');
      if (candidate === target) return [];
      // A correction may be one letter shorter than the shortest word corrected (`gitt` is `git`).
      if (nearest.has(candidate) || !isPlainWord(candidate, MIN_CORRECTED_LENGTH - 1)) continue;
      const distance = editDistance(target, candidate, Math.min(max, best));
      if (distance < best) {
        best = distance;
        nearest = new Set([candidate]);
      } else if (distance === best && distance <= max) {
        nearest.add(candidate);
      }
    }
  }
  return [...nearest];
}
