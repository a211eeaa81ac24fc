import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rankByContainment } from '../../src/search/containment-score.js';
import { type FtsMatch, type LexicalSource, lexicalLeg, MATCH_CAP } from '../../src/search/lexical-leg.js';
import type { FtsTokenizer } from '../../src/store/schema.js';

interface Recorded {
  readonly expressions: string[];
  readonly substrings: string[];
}

/** A source whose FTS answers are given; records what the leg asked for. */
function source(
  tokenizer: FtsTokenizer,
  matches: readonly FtsMatch[],
  options: {
    accepts?: (id: number) => boolean;
    substring?: readonly number[];
    bodies?: Readonly<Record<number, string>>;
  } = {},
): LexicalSource & Recorded {
  const expressions: string[] = [];
  const substrings: string[] = [];
  return {
    tokenizer,
    expressions,
    substrings,
    matches: (expression, limit) => {
      expressions.push(expression);
      return matches.slice(0, limit);
    },
    matchIds: (expression, limit) => {
      expressions.push(expression);
      return matches.slice(0, limit).map((m) => m.chunkId);
    },
    substringMatches: (text, limit) => {
      substrings.push(text);
      return (options.substring ?? []).slice(0, limit);
    },
    texts: (ids) =>
      ids.map((id) => ({
        chunkId: id,
        title: '',
        heading: '',
        body: options.bodies?.[id] ?? (id % 2 === 0 ? 'the the' : 'the'),
      })),
    accepts: options.accepts ?? (() => true),
  };
}

describe('lexical leg', () => {
  it('ranks every match by bm25 when there are at most MATCH_CAP, applying the filter before the cut', () => {
    const matches = [
      { chunkId: 1, bm25: -1 },
      { chunkId: 2, bm25: -5 },
      { chunkId: 3, bm25: -3 },
      { chunkId: 4, bm25: -3 },
      { chunkId: 5, bm25: -9 },
    ];
    const fake = source('unicode61', matches, { accepts: (id) => id !== 5 });
    const result = lexicalLeg('password', 3, [], fake);
    assert.deepEqual(result, { chunkIds: [2, 3, 4], path: 'fts' });
    assert.deepEqual(fake.expressions, ['"password"']);
  });

  it('ranks a one-word trigram phrase by its occurrences, without FTS5 bm25()', () => {
    const bodies = { 1: 'a keys b', 2: 'keys and keys', 3: 'no match here' };
    const fake = source(
      'trigram',
      [1, 2, 3].map((chunkId) => ({ chunkId, bm25: 0 })),
      { bodies },
    );
    assert.deepEqual(lexicalLeg('Keys', 5, [], fake), { chunkIds: [2, 1], path: 'phrase' });
    assert.deepEqual(fake.expressions, ['"Keys"']);
  });

  it('finds a phrase of several words through its two longest words, keeping exact phrase matches that pass the filter', () => {
    const bodies = {
      1: 'reset password now',
      2: 'password reset',
      3: 'Reset Password twice: reset password',
      4: 'reset password',
    };
    const ids = [1, 2, 3, 4].map((chunkId) => ({ chunkId, bm25: 0 }));
    const fake = source('trigram', ids, { bodies, accepts: (id) => id !== 4 });
    assert.deepEqual(lexicalLeg('reset  password', 5, [], fake), { chunkIds: [3, 1], path: 'phrase' });
    assert.deepEqual(fake.expressions, ['"password" AND "reset"']);
  });

  it('builds an OR of terms with the unicode61 tokenizer (fallback mode)', () => {
    const fake = source('unicode61', [{ chunkId: 7, bm25: -2 }]);
    assert.deepEqual(lexicalLeg('reset the-password', 5, [], fake).chunkIds, [7]);
    assert.deepEqual(fake.expressions, ['"reset" OR "the-password"']);
  });

  it('re-ranks the dense candidates when a query matches more than MATCH_CAP chunks', () => {
    const many = Array.from({ length: MATCH_CAP.trigram + 1 }, (_, i) => ({ chunkId: 100 + i, bm25: -1 }));
    const result = lexicalLeg('the', 5, [3, 4, 9], source('trigram', many));
    const manyTerms = Array.from({ length: MATCH_CAP.unicode61 + 1 }, (_, i) => ({ chunkId: 100 + i, bm25: -1 }));
    assert.equal(lexicalLeg('the', 5, [3], source('unicode61', manyTerms)).path, 'rerank-dense');
    // Only the dense candidates are ranked (4 has two occurrences).
    assert.deepEqual(result, { chunkIds: [4, 3, 9], path: 'rerank-dense' });
  });

  it('scans substrings for text under one trigram, and falls back past the cap too', () => {
    const fake = source('trigram', [], { substring: [8, 6] });
    assert.deepEqual(lexicalLeg('th', 5, [], fake), { chunkIds: [6, 8], path: 'substring' });
    assert.deepEqual(fake.substrings, ['th']);
    const crowded = source('trigram', [], { substring: Array.from({ length: MATCH_CAP.trigram + 1 }, (_, i) => i) });
    assert.equal(lexicalLeg('go', 5, [1, 2], crowded).path, 'rerank-dense');
  });

  it('contributes nothing for punctuation-only text', () => {
    const fake = source('trigram', [{ chunkId: 1, bm25: -1 }]);
    assert.deepEqual(lexicalLeg('?!', 5, [1], fake), { chunkIds: [], path: 'none' });
    assert.deepEqual(fake.expressions, []);
  });
});

describe('containment ranking', () => {
  it('prefers more occurrences, shorter text and the weighted columns; ignores case; drops non-matches', () => {
    const body = (chunkId: number, text: string) => ({ chunkId, title: 'x', heading: 'y', body: text });
    const chunks = [
      body(1, 'Straße and more words here'),
      body(2, 'STRASSE is not a match'),
      body(3, 'straße and straße and more'),
      body(4, 'straße'),
      { chunkId: 5, title: 'straße', heading: 'y', body: 'unrelated words here' },
    ];
    assert.deepEqual(rankByContainment(['straße'], chunks), [5, 4, 3, 1]);
    assert.deepEqual(rankByContainment(['数据'], [{ chunkId: 9, title: '', heading: '', body: '大数据平台' }]), [9]);
  });
});
