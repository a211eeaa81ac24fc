import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareTerms, WordPostings } from '../../src/words/word-postings.js';

/** Strings in UTF-8 byte order, which is FTS5's order of its terms. */
const BYTE_ORDER = ['', 'a', 'ab', 'b', 'z', 'é', 'ж', '数', '\uff41', '\u{1d400}', '\u{20000}'];

describe('WordPostings', () => {
  it('orders terms as FTS5 does (UTF-8 bytes), also where UTF-16 code units disagree', () => {
    const shuffled = [...BYTE_ORDER].reverse();
    assert.deepEqual(shuffled.sort(compareTerms), BYTE_ORDER);
    for (const text of BYTE_ORDER) {
      const bytes = Buffer.from(text);
      for (const other of BYTE_ORDER) {
        assert.equal(Math.sign(compareTerms(text, other)), Math.sign(Buffer.compare(bytes, Buffer.from(other))));
      }
    }
    // In UTF-16 a surrogate (U+D835…) sorts before U+FF41; in UTF-8 it sorts after.
    assert.ok('\u{1d400}' < '\uff41');
  });

  it('finds a term, the terms a prefix begins, and counts the rows holding them', () => {
    const postings = new WordPostings({
      terms: ['key', 'kei', 'keyboard', 'lock'].sort(compareTerms),
      offsets: Uint32Array.from([0, 2, 3, 5, 6]),
      rows: Uint32Array.from([0, 1, 1, 1, 2, 2]),
      frequencies: Uint16Array.from([1, 1, 1, 3, 1, 1]),
      lengths: Uint32Array.from([4, 5, 6]),
    });
    assert.deepEqual(postings.terms, ['kei', 'key', 'keyboard', 'lock']);
    assert.deepEqual(postings.range('key', false), { first: 1, end: 2 });
    assert.deepEqual(postings.range('key', true), { first: 1, end: 3 });
    assert.deepEqual(postings.range('ke', true), { first: 0, end: 3 });
    assert.deepEqual(postings.range('kez', false), { first: 3, end: 3 });
    assert.deepEqual(postings.range('zzz', true), { first: 4, end: 4 });
    assert.equal(postings.documentFrequency(postings.range('key', true)), 2, 'row 1 holds both terms: counted once');
    assert.equal(postings.documentFrequency(postings.range('ke', true)), 3);
    assert.equal(postings.documentFrequency(postings.range('kez', false)), 0);
    const deleted = Uint8Array.from([0, 1, 0]);
    assert.equal(postings.documentFrequency(postings.range('ke', true), deleted), 2, 'a deleted row is not counted');
    assert.equal(postings.documentFrequency(postings.range('kei', false), deleted), 1);
    assert.equal(postings.documentFrequency(postings.range('key', false), deleted), 0);
    const counts = Uint32Array.from([1, 1, 1, 0]);
    assert.equal(postings.documentFrequency(postings.range('kei', false), deleted, counts), 1, 'or from the counts');
    assert.throws(() => new WordPostings({ ...postings, offsets: Uint32Array.from([0, 2, 3, 5, 5]) }), RangeError);
  });

  it('tells whether a row holds a term of every range, in any order, and leaves no mark behind', () => {
    // kei: rows 0, 1; key: 1; keyboard: 1, 2; lock: 2.
    const postings = new WordPostings({
      terms: ['kei', 'key', 'keyboard', 'lock'],
      offsets: Uint32Array.from([0, 2, 3, 5, 6]),
      rows: Uint32Array.from([0, 1, 1, 1, 2, 2]),
      frequencies: Uint16Array.from([1, 1, 1, 1, 1, 1]),
      lengths: Uint32Array.from([4, 5, 6]),
    });
    const range = (term: string, prefix = false) => postings.range(term, prefix);
    // [ranges, some row holds all]
    const cases: readonly (readonly [string, readonly { first: number; end: number }[], boolean])[] = [
      ['kei key keyboard (row 1)', [range('kei'), range('key'), range('keyboard')], true],
      ['kei lock', [range('kei'), range('lock')], false],
      ['lock kei', [range('lock'), range('kei')], false],
      ['key* lock (row 2 holds keyboard)', [range('key', true), range('lock')], true],
      ['kei kez', [range('kei'), range('kez')], false],
      ['lock alone', [range('lock')], true],
      ['nothing', [], false],
    ];
    for (const [name, ranges, expected] of cases) {
      assert.equal(postings.someRowHoldsAll(ranges), expected, name);
      // The marks are cleared: asking again, or another question, answers the same.
      assert.equal(postings.someRowHoldsAll(ranges), expected, `${name}, again`);
    }
  });
});
