/**
 * Typo tolerance (docs/retrieval.md#typos), the pure part: which query words
 * are worth correcting, how far a correction may be, and the closest word of
 * some text. The lexical leg decides when to correct and where the candidate
 * text comes from (the chunks the trigram table finds for the word).
 */
import { hasUnspacedScript, TOKEN } from './scripts.js';

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

/** A word of a spaced script: a letter, then letters and combining marks (no digit, no symbol). */
const PLAIN_WORD = /^\p{L}[\p{L}\p{M}]*$/u;
const ASCII = /^\p{ASCII}*$/u;

/** The word case folded and composed (é and e differ by one edit, however é was typed). */
function fold(word: string): string {
  return ASCII.test(word) ? word.toLowerCase() : word.normalize('NFC').toLowerCase();
}

/** The code points of a folded word (its characters, for counting edits). */
function codePoints(folded: string): number[] {
  const points: number[] = [];
  for (const char of folded) points.push(char.codePointAt(0) ?? 0);
  return points;
}

/** Whether a query word could be corrected at all: a word of a spaced script, long enough, without digits. */
export function isCorrectable(word: string): boolean {
  return isPlainWord(word, MIN_CORRECTED_LENGTH);
}

/** One word of a spaced script, at least `minLength` characters, letters without digits (no identifier). */
function isPlainWord(word: string, minLength: number): boolean {
  return PLAIN_WORD.test(word) && !hasUnspacedScript(word) && codePoints(word).length >= minLength;
}

/** The word's character trigrams, folded, in order and without repeats (the trigram table's terms for it). */
export function trigramsOf(word: string): string[] {
  const chars = [...fold(word)];
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
  return alignmentDistance(codePoints(fold(a)), codePoints(fold(b)), max);
}

/** Three rows of the distance table, reused: a search compares hundreds of words. */
let rows = { beforePrevious: new Int32Array(32), previous: new Int32Array(32), current: new Int32Array(32) };

/** `editDistance` of two folded words' code points. */
function alignmentDistance(x: readonly number[], y: readonly number[], max: number): number {
  if (Math.abs(x.length - y.length) > max) return max + 1;
  if (rows.current.length <= y.length) {
    const size = 2 * (y.length + 1);
    rows = { beforePrevious: new Int32Array(size), previous: new Int32Array(size), current: new Int32Array(size) };
  }
  let { beforePrevious, previous, current } = rows;
  for (let j = 0; j <= y.length; j += 1) previous[j] = j;
  for (let i = 1; i <= x.length; i += 1) {
    current[0] = i;
    let rowMin = i;
    const xi = x[i - 1];
    for (let j = 1; j <= y.length; j += 1) {
      const cost = xi === y[j - 1] ? 0 : 1;
      // The indices stay inside the rows (sized above): `as number` drops noUncheckedIndexedAccess's undefined.
      let value = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && xi === y[j - 2] && x[i - 2] === y[j - 1]) {
        value = Math.min(value, (beforePrevious[j - 2] as number) + 1);
      }
      current[j] = value;
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > max) return max + 1;
    [beforePrevious, previous, current] = [previous, current, beforePrevious];
  }
  return Math.min(previous[y.length] as number, max + 1);
}

/**
 * The words of `texts` (folded) nearest to `word` within its edit budget, all
 * at the same smallest distance; none when the word itself occurs. Each
 * distinct word is weighed once, and only when its length is within budget.
 */
export function nearestWords(word: string, texts: readonly string[]): string[] {
  const target = fold(word);
  const targetPoints = codePoints(target);
  const max = maxEditsFor(targetPoints.length);
  const seen = new Set<string>();
  let best = max + 1;
  let nearest: string[] = [];
  for (const text of texts) {
    for (const token of text.match(TOKEN) ?? []) {
      if (seen.has(token)) continue;
      seen.add(token);
      // UTF-16 lengths bound the code point counts closely enough to skip most words unread.
      if (Math.abs(token.length - target.length) > 2 * max) continue;
      const folded = fold(token);
      if (folded === target) return [];
      // A correction may be one letter shorter than the shortest word corrected (`gitt` is `git`).
      if (!isPlainWord(folded, MIN_CORRECTED_LENGTH - 1) || nearest.includes(folded)) continue;
      const points = codePoints(folded);
      const distance = alignmentDistance(targetPoints, points, Math.min(max, best));
      if (distance < best) {
        best = distance;
        nearest = [folded];
      } else if (distance === best && distance <= max) {
        nearest.push(folded);
      }
    }
  }
  return nearest;
}

/**
 * The word of `texts` (folded) that `spells` accepts nearest to `typed`, the first of those as near: where
 * an index term found near a typo is read back as a word a chunk holds (`fluoresc` is `fluorescent` for
 * `florescent`, though the chunk may say `fluorescence` first).
 */
export function spelledAs(
  texts: readonly string[],
  spells: (word: string) => boolean,
  typed: string,
): string | undefined {
  const seen = new Set<string>();
  const target = codePoints(fold(typed));
  let best: { word: string; distance: number } | undefined;
  for (const text of texts) {
    for (const token of text.match(TOKEN) ?? []) {
      const folded = fold(token);
      if (seen.has(folded)) continue;
      seen.add(folded);
      if (!isPlainWord(folded, MIN_CORRECTED_LENGTH - 1) || !spells(folded)) continue;
      const distance = alignmentDistance(target, codePoints(folded), SPELLED_MAX_EDITS);
      if (best === undefined || distance < best.distance) best = { word: folded, distance };
    }
  }
  return best?.word;
}

/** Words spelled alike differ in their endings: past this many edits they are all as far. */
const SPELLED_MAX_EDITS = 8;
