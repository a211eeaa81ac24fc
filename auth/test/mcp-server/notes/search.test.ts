import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Bm25Index } from '../../../src/mcp-server/notes/bm25-index.js';
import { buildSnippet, firstOffsets } from '../../../src/mcp-server/notes/snippet.js';
import { documentTerms, foldCase, queryTerms, tokenize } from '../../../src/mcp-server/notes/tokenize.js';

const terms = (text: string) => documentTerms(text).map((token) => token.term);

describe('tokenize', () => {
  it('folds case beyond lower-casing and applies NFKC', () => {
    assert.equal(foldCase('Überprüfung'), 'überprüfung');
    assert.equal(foldCase('ÜBERPRÜFUNG'), 'überprüfung');
    assert.equal(foldCase('Straße'), 'strasse');
    assert.equal(foldCase('ＭＣＰ'), 'mcp', 'full-width Latin');
    assert.equal(foldCase('ﬁle'), 'file', 'ligature');
    assert.equal(foldCase('ΣΟΦΟΣ'), foldCase('σοφος'));
  });
  it('matches decomposed and precomposed accents alike', () => {
    assert.deepEqual(terms('Übung'), terms('U\u0308bung'));
  });
  it('splits words on anything that is not a letter, digit or mark, keeping offsets into the original', () => {
    const text = 'Rotate key-set (v2), then re-fetch!';
    const tokens = tokenize(text, { unigrams: true });
    assert.deepEqual(
      tokens.map((token) => token.term),
      ['rotate', 'key', 'set', 'v2', 'then', 're', 'fetch'],
    );
    for (const token of tokens) assert.equal(foldCase(text.slice(token.start, token.end)), token.term);
  });
  it('indexes CJK runs as bigrams plus single characters, and queries them as bigrams', () => {
    assert.deepEqual(terms('東京都'), ['東', '東京', '京', '京都', '都']);
    assert.deepEqual(queryTerms('東京都'), ['東京', '京都']);
    assert.deepEqual(queryTerms('京'), ['京']);
    assert.deepEqual(queryTerms('MCP服务器'), ['mcp', '服务', '务器']);
    assert.deepEqual(queryTerms('한국어 검색'), ['한국', '국어', '검색']);
  });
  it('keeps correct offsets for characters outside the BMP', () => {
    const text = 'x 𠮷野家 y';
    for (const token of tokenize(text, { unigrams: true })) {
      assert.equal(foldCase(text.slice(token.start, token.end)), token.term);
    }
  });
  it('yields no query terms for punctuation only', () => {
    assert.deepEqual(queryTerms('!?… --'), []);
  });
});

describe('Bm25Index', () => {
  function index(docs: Record<string, [string, string]>): Bm25Index {
    const bm25 = new Bm25Index();
    for (const [id, [title, body]] of Object.entries(docs)) bm25.upsert(id, terms(title), terms(body));
    return bm25;
  }
  const ids = (bm25: Bm25Index, query: string) => bm25.search(queryTerms(query)).map((hit) => hit.id);

  it('ranks a title match above the same word in a body of similar length', () => {
    const bm25 = index({
      body: ['Groceries', 'milk eggs rotation bread'],
      title: ['Rotation', 'milk eggs cheese bread'],
    });
    assert.deepEqual(ids(bm25, 'rotation'), ['title', 'body']);
  });
  it('ranks a rare term above a common one and rewards matching more query terms', () => {
    const bm25 = index({
      a: ['note a', 'the key the key the'],
      b: ['note b', 'the jwks endpoint'],
      c: ['note c', 'the key and the jwks endpoint'],
      d: ['note d', 'the key weather'],
    });
    assert.deepEqual(ids(bm25, 'jwks key'), ['c', 'b', 'a', 'd']);
    const [first] = bm25.search(queryTerms('the'));
    assert.ok(first && first.score > 0);
  });
  it('prefers a short document over a long one with the same term frequency', () => {
    const filler = 'lorem ipsum dolor sit amet '.repeat(40);
    const bm25 = index({ long: ['x', `token ${filler}`], short: ['y', 'token here'] });
    assert.deepEqual(ids(bm25, 'token'), ['short', 'long']);
  });
  it('is not a substring match: part of a word does not match', () => {
    const bm25 = index({ a: ['rotation', 'rotating keys'] });
    assert.deepEqual(ids(bm25, 'rot'), []);
  });
  it('updates and removes documents', () => {
    const bm25 = index({ a: ['alpha', 'first'], b: ['beta', 'second'] });
    bm25.upsert('a', terms('gamma'), terms('third'));
    assert.deepEqual(ids(bm25, 'alpha'), []);
    assert.deepEqual(ids(bm25, 'gamma'), ['a']);
    bm25.remove('b');
    assert.deepEqual(ids(bm25, 'beta'), []);
    assert.equal(bm25.size, 1);
  });
});

describe('buildSnippet', () => {
  const snippet = (text: string, query: string) =>
    buildSnippet(text, firstOffsets(documentTerms(text)), queryTerms(query));
  const long = `${'Intro words go here. '.repeat(30)}The signing key rotates every ninety days. ${'More trailing text. '.repeat(30)}`;
  it('returns the passage around the match, cut at word boundaries, with ellipses', () => {
    const passage = snippet(long, 'rotates');
    assert.match(passage, /^…[A-Z][a-z]+ .*The signing key rotates every ninety days\..*…$/);
    assert.ok(passage.length <= 202);
    assert.match(passage, /[a-z.]…$/);
  });
  it('prefers the window holding the most distinct query terms', () => {
    const text = `alpha ${'x '.repeat(200)} gamma beta alpha delta ${'y '.repeat(200)} beta`;
    assert.match(snippet(`${text}`, 'gamma beta delta'), /gamma beta alpha delta/);
  });
  it('returns the whole text when it is short, and the start when nothing matches', () => {
    assert.equal(snippet('Short  note\nbody', 'note'), 'Short note body');
    assert.match(snippet(long, 'absent'), /^Intro words go here\./);
  });
  it('finds CJK matches', () => {
    const text = `${'前文です。'.repeat(60)}鍵の回転は九十日ごとです。`;
    assert.match(snippet(text, '鍵の回転'), /鍵の回転は九十日ごとです。$/);
  });
  it('finds a match deep inside a large note', () => {
    const big = `${'filler text here '.repeat(15_000)}needle found at last. ${'tail '.repeat(1000)}`;
    assert.match(snippet(big, 'needle'), /^….*needle found at last\. tail.*…$/);
  });
});
