import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { buildFtsQuery, MAX_OR_TERMS } from '../../src/search/fts-query.js';

const PHRASE = { strategy: 'phrase', minTermLength: 3 } as const;
const TERMS = { strategy: 'or-terms', minTermLength: 1 } as const;

/** Inputs that break naive MATCH strings (docs/retrieval.md#lexical-leg). */
const HOSTILE: readonly string[] = [
  'DEC-0054',
  '-leading hyphen',
  'title:secret',
  'a"b',
  '"unbalanced',
  '""',
  '(paren',
  'close)',
  'foo NEAR bar',
  'NEAR(a b, 3)',
  'AND',
  'OR NOT',
  'x AND y OR z NOT w',
  'prefix*',
  '*',
  '^start',
  '1.0.21',
  'C++ & C#',
  "it's",
  'path/to/file.md',
  'what?',
  '{title heading}: x',
  '+',
  'Straße über Öl',
  '数据库',
  '数据',
  'emoji 🚀 rocket',
  'tab\there',
  'nul\u0000byte',
  '   ',
  '---',
  '\\',
  "'; DROP TABLE chunks; --",
];

describe('FTS5 query builder', () => {
  it('quotes the whole query as one phrase, doubling inner quotes, for the trigram tokenizer', () => {
    assert.deepEqual(buildFtsQuery('  reset   "the" password ', PHRASE), {
      kind: 'match',
      expression: '"reset ""the"" password"',
      terms: ['reset "the" password'],
      narrowing: '"password" AND "reset"',
    });
    assert.deepEqual(buildFtsQuery('NEAR(a b)', PHRASE), {
      kind: 'match',
      expression: '"NEAR(a b)"',
      terms: ['NEAR(a b)'],
      narrowing: '"NEAR(a"',
    });
    assert.deepEqual(buildFtsQuery('straße', PHRASE), { kind: 'match', expression: '"straße"', terms: ['straße'] });
    assert.deepEqual(buildFtsQuery('a b c', PHRASE), { kind: 'match', expression: '"a b c"', terms: ['a b c'] });
  });

  it('joins quoted whitespace-separated terms with OR for unicode61, dropping duplicates and punctuation-only terms', () => {
    assert.deepEqual(buildFtsQuery('DEC-0054 AND -- title:x DEC-0054', TERMS), {
      kind: 'match',
      expression: '"DEC-0054" OR "AND" OR "title:x"',
      terms: ['DEC-0054', 'AND', 'title:x'],
    });
  });

  it('hands text under one trigram to the substring scan, and says when nothing searchable is left', () => {
    assert.deepEqual(buildFtsQuery(' 数据 ', PHRASE), { kind: 'short', text: '数据' });
    assert.deepEqual(buildFtsQuery('Go', PHRASE), { kind: 'short', text: 'Go' });
    assert.deepEqual(buildFtsQuery('go ai', { strategy: 'or-terms', minTermLength: 3 }), {
      kind: 'short',
      text: 'go ai',
    });
    for (const text of ['', '   ', '---', '?!', '""', '\u0000']) {
      assert.deepEqual(buildFtsQuery(text, PHRASE), { kind: 'empty' }, JSON.stringify(text));
      assert.deepEqual(buildFtsQuery(text, TERMS), { kind: 'empty' }, JSON.stringify(text));
    }
  });

  it('replaces control characters and keeps at most MAX_OR_TERMS terms', () => {
    assert.deepEqual(buildFtsQuery('ab\u0000cd', PHRASE), { kind: 'match', expression: '"ab cd"', terms: ['ab cd'] });
    const many = Array.from({ length: 100 }, (_, i) => `w${i}`).join(' ');
    const built = buildFtsQuery(many, TERMS);
    assert.equal(built.kind === 'match' && built.terms.length, MAX_OR_TERMS);
  });

  for (const tokenizer of ['trigram', 'unicode61'] as const) {
    it(`never produces an FTS5 syntax error with the ${tokenizer} tokenizer (hostile table and fuzz)`, () => {
      const db = new Database(':memory:');
      db.exec(`CREATE VIRTUAL TABLE t USING fts5(title, heading, body, tokenize = '${tokenizer}')`);
      const insert = db.prepare('INSERT INTO t (title, heading, body) VALUES (?, ?, ?)');
      for (const text of HOSTILE) insert.run(text, text, `body with ${text} inside`);
      const match = db.prepare('SELECT rowid, bm25(t, 3, 2, 1) FROM t WHERE t MATCH ? LIMIT 5');
      const options = tokenizer === 'trigram' ? PHRASE : TERMS;
      const random = seeded(tokenizer === 'trigram' ? 7 : 11);
      const fuzz = Array.from({ length: 2000 }, () => fuzzString(random));
      let matched = 0;
      for (const text of [...HOSTILE, ...fuzz]) {
        const built = buildFtsQuery(text, options);
        if (built.kind !== 'match') continue;
        for (const expression of [built.expression, built.narrowing ?? built.expression]) {
          assert.doesNotThrow(() => match.all(expression), `${JSON.stringify(text)} → ${expression}`);
        }
        matched += 1;
      }
      assert.ok(matched > 1000, `most fuzz inputs reach MATCH (${matched})`);
      // Each hostile text finds the row that holds it.
      for (const text of ['DEC-0054', 'title:secret', 'C++ & C#', 'Straße über Öl', '数据库']) {
        const built = buildFtsQuery(text, options);
        assert.ok(built.kind === 'match' && match.all(built.expression).length > 0, text);
      }
      db.close();
    });
  }
});

const ALPHABET = [
  ...'aeiouxyz AZ09"\'()*^:-+.,/\\{}[]<>!?&|~`#$%@_=;\t\n',
  'NEAR',
  'AND',
  'OR',
  'NOT',
  'ß',
  'ü',
  '数',
  '据',
  '🚀',
];

function fuzzString(random: () => number): string {
  const length = 1 + Math.floor(random() * 12);
  return Array.from({ length }, () => ALPHABET[Math.floor(random() * ALPHABET.length)] ?? '').join('');
}

function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
}
