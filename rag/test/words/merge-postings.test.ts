import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { seededRandom } from '@notegate/kit/testing';
import { countDeletedPostings, withRemovedRows } from '../../src/words/deleted-postings.js';
import { mergePostings } from '../../src/words/merge-postings.js';
import { postingsFromTokens, type RowTokens } from '../../src/words/token-postings.js';
import type { WordPostings } from '../../src/words/word-postings.js';

const WORDS = ['ant', 'bee', 'cat', 'dog', 'eel', 'fox', 'key', 'keys', '猫', ''];

function randomRows(random: () => number, count: number): RowTokens[] {
  const words = () =>
    Array.from({ length: Math.floor(random() * 6) }, () => WORDS[Math.floor(random() * WORDS.length)] ?? 'ant');
  return Array.from({ length: count }, () => [words(), words(), words()]);
}

/** Each term with its (row, frequency) postings in their order, and each row's length: what the postings say. */
function contents(postings: WordPostings) {
  return {
    terms: postings.terms.map((term, t) => {
      const list: [number, number][] = [];
      for (let i = postings.offsets[t] ?? 0; i < (postings.offsets[t + 1] ?? 0); i += 1) {
        list.push([postings.rows[i] ?? -1, postings.frequencies[i] ?? -1]);
      }
      return [term, list];
    }),
    lengths: Array.from(postings.lengths),
  };
}

describe('merging word postings', () => {
  for (const seed of [1, 2, 3, 4]) {
    it(`gives the postings of the kept rows as if they were tokenized together (seed ${seed})`, () => {
      const random = seededRandom(seed);
      const sources = [randomRows(random, 30), randomRows(random, 7), randomRows(random, 12)];
      const deleted = sources.map((rows) => Uint8Array.from(rows, () => (random() < 0.3 ? 1 : 0)));
      // The merged rows: every kept row, the sources' rows shuffled together, so that a term's postings
      // come from the sources in no order of rows (postings from tokens list each term's rows ascending).
      const mergedRowOf = sources.map((rows) => rows.map(() => -1));
      const keptRows = sources.flatMap((rows, s) => rows.flatMap((_, r) => (deleted[s]?.[r] === 1 ? [] : [[s, r]])));
      for (let i = keptRows.length - 1; i > 0; i -= 1) {
        const j = Math.floor(random() * (i + 1));
        [keptRows[i], keptRows[j]] = [keptRows[j] as number[], keptRows[i] as number[]];
      }
      const kept: RowTokens[] = [];
      const sourceOf: number[] = [];
      const rowOf: number[] = [];
      for (const [s, r] of keptRows as [number, number][]) {
        (mergedRowOf[s] as number[])[r] = kept.length;
        sourceOf.push(s);
        rowOf.push(r);
        kept.push(sources[s]?.[r] ?? []);
      }
      const merged = mergePostings(sources.map(postingsFromTokens), {
        sourceOf: Uint32Array.from(sourceOf),
        rowOf: Uint32Array.from(rowOf),
        mergedRowOf: mergedRowOf.map((map) => Int32Array.from(map)),
      });
      assert.deepEqual(contents(merged.postings), contents(postingsFromTokens(kept)));
      sources.forEach((rows, s) => {
        const source = postingsFromTokens(rows);
        assert.deepEqual(
          source.terms.map((_, t) => merged.postings.terms[merged.termMaps[s]?.[t] ?? -1]),
          source.terms,
          'each source term maps to itself',
        );
      });
    });
  }

  it('counts the postings in deleted rows one removed row at a time as a walk of every posting does', () => {
    const random = seededRandom(9);
    const rows = randomRows(random, 40);
    const postings = postingsFromTokens(rows);
    const deleted = new Uint8Array(rows.length);
    let counts: Uint32Array | undefined;
    for (const batch of [[3, 17], [0], [21, 22, 39]]) {
      counts = withRemovedRows(
        postings,
        counts,
        batch.map((row) => ({ row, tokens: rows[row] ?? [] })),
      );
      for (const row of batch) deleted[row] = 1;
      assert.deepEqual(Array.from(counts ?? []), Array.from(countDeletedPostings(postings, deleted)));
    }
    const other = rows[5]?.map((column) => [...column, 'zebra']) ?? [];
    assert.equal(withRemovedRows(postings, counts, [{ row: 5, tokens: other }]), undefined, 'a word the segment lacks');
  });
});
