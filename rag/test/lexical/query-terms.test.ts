import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { termExpression } from '../../src/lexical/fts-query.js';
import { MAX_QUERY_TERMS, queryTerms } from '../../src/lexical/query-terms.js';

/** The terms as FTS5 strings (`*` marks a prefix term), in query order. */
function terms(query: string, ngrams = true): string[] {
  return queryTerms(query, { ngrams }).terms.map(termExpression);
}

describe('query terms, by script', () => {
  const CASES: readonly [string, string, string[]][] = [
    [
      'English with punctuation',
      'What causes (IL-6) release in cells?',
      ['"What"', '"causes"', '"IL"', '"6"', '"release"', '"in"', '"cells"'],
    ],
    ['English, repeated words in other case', 'Keys keys KEYS rotate', ['"Keys"', '"rotate"']],
    [
      'German compounds stay whole words',
      'Verkehrsberuhigung am Wochenende',
      ['"Verkehrsberuhigung"', '"am"', '"Wochenende"'],
    ],
    ['German with ß and umlauts', 'Straße über Öl', ['"Straße"', '"über"', '"Öl"']],
    ['Russian', 'Сколько очков уступила защита?', ['"Сколько"', '"очков"', '"уступила"', '"защита"']],
    ['Greek', 'Ελληνικά κείμενα', ['"Ελληνικά"', '"κείμενα"']],
    ['Hindi keeps its vowel signs', 'हिन्दी भाषा', ['"हिन्दी"', '"भाषा"']],
    ['Arabic', 'مرحبا بالعالم', ['"مرحبا"', '"بالعالم"']],
    ['Vietnamese', 'Tiếng Việt', ['"Tiếng"', '"Việt"']],
    ['Chinese: character bigrams', '黑豹队的防守', ['"黑豹"', '"豹队"', '"队的"', '"的防"', '"防守"']],
    ['Chinese: a two-character word is one bigram', '数据', ['"数据"']],
    ['Chinese: one character is a prefix term', '猫', ['"猫"*']],
    ['Chinese split by punctuation', '数据库，系统。', ['"数据"', '"据库"', '"系统"']],
    ['Japanese kanji and kana are one run', '東京オフィス', ['"東京"', '"京オ"', '"オフ"', '"フィ"', '"ィス"']],
    [
      'Thai: character trigrams, marks kept with their base',
      'ภาษาไทย ง่าย',
      ['"ภาษ"', '"าษา"', '"ษาไ"', '"าไท"', '"ไทย"', '"ง่าย"'],
    ],
    ['a script change inside one token', 'Docker容器化', ['"Docker"', '"容器"', '"器化"']],
    [
      'identifiers split at punctuation',
      'DEC-0054 1.0.21 index-snapshot.ts',
      ['"DEC"', '"0054"', '"1"', '"0"', '"21"', '"index"', '"snapshot"', '"ts"'],
    ],
    [
      'quotes and FTS5 operators are plain words',
      'a"b NEAR(c) AND -d title:x * ^e',
      ['"a"', '"b"', '"NEAR"', '"c"', '"AND"', '"d"', '"title"', '"x"', '"e"'],
    ],
    ['nothing searchable', ' --- ?! "" * ', []],
  ];
  for (const [label, query, expected] of CASES) {
    it(label, () => assert.deepEqual(terms(query), expected));
  }

  it('keeps unspaced runs whole in the fallback layout', () => {
    assert.deepEqual(terms('黑豹队 keys', false), ['"黑豹队"', '"keys"']);
  });

  it('gives the term sequence for the phrase, repeats kept, each term with its kind', () => {
    const analysed = queryTerms('rotate keys, rotate 数据库', { ngrams: true });
    assert.deepEqual(
      analysed.sequence.map((t) => [t.text, t.kind]),
      [
        ['rotate', 'word'],
        ['keys', 'word'],
        ['rotate', 'word'],
        ['数据', 'syllabic'],
        ['据库', 'syllabic'],
      ],
    );
  });

  it(`keeps at most ${MAX_QUERY_TERMS} distinct terms (an input bound, whatever the index holds)`, () => {
    const long = Array.from({ length: 200 }, (_, i) => `w${i}`).join(' ');
    const analysed = queryTerms(long, { ngrams: true });
    assert.equal(analysed.terms.length, MAX_QUERY_TERMS);
    assert.equal(analysed.terms[0]?.text, 'w0');
  });
});
