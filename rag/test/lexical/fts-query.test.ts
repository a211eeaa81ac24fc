import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { seededRandom } from '@notegate/kit/testing';
import Database from 'better-sqlite3';
import { anyOf, phraseExpression, quote, termExpression } from '../../src/lexical/fts-query.js';
import { lexicalIndexText } from '../../src/lexical/index-text.js';
import { MAX_QUERY_TERMS, queryTerms } from '../../src/lexical/query-terms.js';
import { TRIGRAM_TOKENIZE, WORDS_TOKENIZE } from '../../src/store/schema.js';

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

describe('FTS5 expressions', () => {
  it('quotes every term, doubling inner quotes, and marks prefix terms', () => {
    assert.equal(quote('say "hi"'), '"say ""hi"""');
    const { terms } = queryTerms('DEC-0054 猫', { ngrams: true });
    assert.deepEqual(terms.map(termExpression), ['"DEC"', '"0054"', '"猫"*']);
    assert.equal(anyOf(['"a"', '"b"*']), '"a" OR "b"*');
  });

  it('makes the phrase of two or more terms, a prefix only at its end', () => {
    const phrase = (text: string) => phraseExpression(queryTerms(text, { ngrams: true }), MAX_QUERY_TERMS);
    assert.equal(phrase('rotate signing keys'), '"rotate signing keys"');
    assert.equal(phrase('DEC-0054'), '"DEC 0054"');
    assert.equal(phrase('黑豹队'), '"黑豹 豹队"');
    assert.equal(phrase('keys 猫'), '"keys 猫"*');
    assert.equal(phrase('keys'), undefined, 'one term is the word tier itself');
    assert.equal(phrase(''), undefined);
    assert.equal(phraseExpression(queryTerms('a b c', { ngrams: true }), 2), undefined, 'longer than the bound');
  });

  for (const layout of ['words+trigram', 'words'] as const) {
    it(`never produces an FTS5 syntax error (${layout} layout; hostile table and fuzz)`, () => {
      const ngrams = layout === 'words+trigram';
      const db = new Database(':memory:');
      const sql = (tokenize: string) => `'${tokenize.replaceAll("'", "''")}'`;
      db.exec(`CREATE VIRTUAL TABLE w USING fts5(title, heading, body, tokenize = ${sql(WORDS_TOKENIZE)})`);
      db.exec(`CREATE VIRTUAL TABLE t USING fts5(title, heading, body, tokenize = ${sql(TRIGRAM_TOKENIZE)})`);
      const insertWords = db.prepare('INSERT INTO w (title, heading, body) VALUES (?, ?, ?)');
      const insertTrigrams = db.prepare('INSERT INTO t (title, heading, body) VALUES (?, ?, ?)');
      for (const text of HOSTILE) {
        const indexed = ngrams ? lexicalIndexText(text) : text;
        insertWords.run(indexed, indexed, `body with ${indexed} inside`);
        insertTrigrams.run(text, text, `body with ${text} inside`);
      }
      const words = db.prepare('SELECT rowid, bm25(w, 3, 2, 1) FROM w WHERE w MATCH ? LIMIT 5');
      const trigrams = db.prepare('SELECT rowid, bm25(t, 3, 2, 1) FROM t WHERE t MATCH ? LIMIT 5');
      const random = seededRandom(ngrams ? 7 : 11);
      const fuzz = Array.from({ length: 2000 }, () => fuzzString(random));
      let matched = 0;
      for (const text of [...HOSTILE, ...fuzz]) {
        const analysed = queryTerms(text, { ngrams });
        if (analysed.terms.length === 0) continue;
        const expressions = [anyOf(analysed.terms.map(termExpression)), phraseExpression(analysed, MAX_QUERY_TERMS)];
        for (const expression of expressions) {
          if (expression === undefined) continue;
          assert.doesNotThrow(() => words.all(expression), `${JSON.stringify(text)} → ${expression}`);
        }
        const substrings = analysed.terms.filter((term) => [...term.text].length >= 3).map((term) => quote(term.text));
        if (substrings.length > 0) assert.doesNotThrow(() => trigrams.all(anyOf(substrings)), JSON.stringify(text));
        matched += 1;
      }
      assert.ok(matched > 1000, `most fuzz inputs reach MATCH (${matched})`);
      // Each hostile text finds the row that holds it.
      for (const text of ['DEC-0054', 'title:secret', 'C++ & C#', 'Straße über Öl', '数据库', '数据']) {
        const analysed = queryTerms(text, { ngrams });
        assert.ok(words.all(anyOf(analysed.terms.map(termExpression))).length > 0, text);
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
