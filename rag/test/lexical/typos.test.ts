import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  editDistance,
  isCorrectable,
  maxEditsFor,
  nearestWords,
  spelledAs,
  trigramsOf,
} from '../../src/lexical/typos.js';

describe('typos', () => {
  // [a, b, distance within a budget of 2]
  const distances: readonly (readonly [string, string, number])[] = [
    ['stash', 'stash', 0],
    ['stahs', 'stash', 1],
    ['caffinate', 'caffeinate', 1],
    ['renmae', 'rename', 1],
    ['statment', 'statement', 1],
    ['Timout', 'timeout', 1],
    ['cafe', 'café', 1],
    ['kitten', 'sitting', 3],
    ['a', 'abcdef', 3],
  ];
  for (const [a, b, distance] of distances) {
    it(`puts ${a} ${distance > 2 ? 'more than 2' : distance} edits from ${b}`, () => {
      assert.equal(editDistance(a, b, 2), distance);
      assert.equal(editDistance(b, a, 2), distance);
    });
  }

  it('reads back the word of the texts that a term stands for nearest to the typed one, folded', () => {
    const stem = (word: string) => word.replace(/(ence|ent|s)$/, '');
    const texts = ['GFP: v2 Fluorescence, fluorescents', 'Fluorescent'];
    assert.equal(
      spelledAs(texts, (word) => stem(word) === 'fluoresc', 'florescent'),
      'fluorescent',
    );
    assert.equal(
      spelledAs(texts, (word) => stem(word) === 'fluoresc', 'florescence'),
      'fluorescence',
    );
    assert.equal(
      spelledAs(texts, (word) => word === 'v2' || word === 'gf', 'gfp'),
      undefined,
      'no digits, three letters at least',
    );
  });

  it('allows one edit up to five characters and two from six on', () => {
    assert.deepEqual([4, 5, 6, 12].map(maxEditsFor), [1, 1, 2, 2]);
  });

  it('corrects only plain words of a spaced script, four characters or more', () => {
    assert.deepEqual(['rebsae', 'gti', 'v1.2', 'pg15', '数据库', 'ключи', 'Straße'].map(isCorrectable), [
      true,
      false,
      false,
      false,
      false,
      true,
      true,
    ]);
  });

  it('gives the trigrams of a word, folded, without repeats', () => {
    assert.deepEqual(trigramsOf('Caffinate'), ['caf', 'aff', 'ffi', 'fin', 'ina', 'nat', 'ate']);
    assert.deepEqual(trigramsOf('aaaa'), ['aaa']);
  });

  it('finds the nearest words of a text within the budget, all at the smallest distance', () => {
    const texts = ['Prevent sleep with the caffeinate command', 'Rebase and rename, rebased twice'];
    assert.deepEqual(nearestWords('caffinate', texts), ['caffeinate']);
    assert.deepEqual(nearestWords('rebsae', texts), ['rebase']);
    assert.deepEqual(nearestWords('renmae', texts), ['rename']);
    assert.deepEqual(nearestWords('gitt', ['git and gist']).sort(), ['gist', 'git']);
    assert.deepEqual(nearestWords('kubernetes', texts), [], 'nothing within two edits');
    assert.deepEqual(nearestWords('sleep', texts), [], 'the word itself occurs: no typo');
  });
});
