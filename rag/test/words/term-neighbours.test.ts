import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { seededRandom } from '@notegate/kit/testing';
import { editDistance } from '../../src/lexical/typos.js';
import { type NearTerm, TermNeighbours } from '../../src/words/term-neighbours.js';

/** Every term at the smallest distance within `maxEdits`, measured against each term of the list. */
function measuredAgainstAll(terms: readonly string[], token: string, maxEdits: number): NearTerm[] {
  const measured = terms
    .filter((term) => term !== token)
    .map((term) => ({ term, distance: editDistance(token, term, maxEdits) }))
    .filter((near) => near.distance <= maxEdits);
  const best = Math.min(...measured.map((near) => near.distance));
  return measured.filter((near) => near.distance === best);
}

const sorted = (found: readonly NearTerm[]) => [...found].sort((a, b) => (a.term < b.term ? -1 : 1));

describe('term neighbours', () => {
  const TERMS = ['caffein', 'cach', 'renam', 'rema', 'session', 'stash', 'ernam', 'fluoresc', 'pparg', 'ppar'];
  // [token, edits allowed, nearest terms]
  const cases: readonly (readonly [string, number, readonly string[]])[] = [
    ['caffin', 1, ['caffein']],
    ['floresc', 2, ['fluoresc']],
    ['sesion', 2, ['session']],
    ['stahs', 1, ['stash']],
    ['ppari', 1, ['ppar', 'pparg']],
    ['renma', 1, ['rema', 'renam']],
    ['kubernet', 2, []],
    ['stash', 2, []],
  ];
  const neighbours = new TermNeighbours(TERMS);
  for (const [token, maxEdits, expected] of cases) {
    it(`finds ${expected.length > 0 ? expected.join(', ') : 'nothing'} for ${token} within ${maxEdits}`, () => {
      assert.deepEqual(
        neighbours
          .nearest(token, maxEdits)
          .map((near) => near.term)
          .sort(),
        [...expected],
      );
    });
  }

  it('measures the terms no bigram reached when two edits may leave none (two swaps)', () => {
    // `ernma` and `renam` share no padded bigram, yet they are two adjacent swaps apart.
    assert.deepEqual(new TermNeighbours(['renam', 'kubern']).nearest('ernma', 2), [{ term: 'renam', distance: 2 }]);
    assert.deepEqual(new TermNeighbours(['renam', 'kubern']).nearest('ernma', 1), []);
  });

  it('finds what measuring every term finds, on random word lists and typos', () => {
    const random = seededRandom(7);
    const letters = 'abcdeéfgo';
    const word = (length: number) =>
      Array.from({ length }, () => letters[Math.floor(random() * letters.length)] ?? 'a').join('');
    for (let round = 0; round < 40; round += 1) {
      const terms = [...new Set(Array.from({ length: 300 }, () => word(2 + Math.floor(random() * 7))))];
      const index = new TermNeighbours(terms);
      for (let q = 0; q < 25; q += 1) {
        const source = terms[Math.floor(random() * terms.length)] ?? 'abc';
        // A typo of a listed term: one or two random edits, sometimes a swap of neighbours.
        let token = source;
        for (let edit = 0; edit < 1 + Math.floor(random() * 2); edit += 1) {
          const at = Math.floor(random() * token.length);
          const kind = Math.floor(random() * 4);
          if (kind === 0) token = token.slice(0, at) + word(1) + token.slice(at + 1);
          else if (kind === 1) token = token.slice(0, at) + word(1) + token.slice(at);
          else if (kind === 2 && token.length > 1) token = token.slice(0, at) + token.slice(at + 1);
          else if (at + 1 < token.length) token = token.slice(0, at) + token[at + 1] + token[at] + token.slice(at + 2);
        }
        for (const maxEdits of [1, 2]) {
          assert.deepEqual(
            sorted(index.nearest(token, maxEdits)),
            sorted(measuredAgainstAll(terms, token, maxEdits)),
            `${token} within ${maxEdits}`,
          );
        }
      }
    }
  });
});
