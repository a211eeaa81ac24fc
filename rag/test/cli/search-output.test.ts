import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatHits, paintRanges } from '../../src/cli/search-output.js';
import type { SearchHit } from '../../src/search/hybrid-search.js';
import { matchRanges, snippetOf, termPatterns } from '../../src/search/snippet.js';

const hit: SearchHit = {
  chunkId: 1,
  vault: 'v',
  path: 'ops/keys.md',
  namespace: 'ops',
  title: 'Keys',
  heading: 'Setup > Rotation',
  lineStart: 4,
  lineEnd: 9,
  text: 'We rotated the\nsigning keys. Keyserver unrelated.',
  score: 0.03,
  denseRank: 1,
  lexicalRank: 2,
};

/** The text with every match of the patterns (overlaps merged) wrapped by `paint`. */
const mark = (text: string, patterns: readonly RegExp[], paint: (text: string) => string) =>
  paintRanges(text, matchRanges(text, patterns), paint);

describe('search output', () => {
  it('marks the query terms at word starts (any case) and n-grams anywhere, merging overlaps', () => {
    const brackets = (text: string) => `[${text}]`;
    assert.equal(
      mark('We rotated the keys, Keys!', termPatterns('rotate KEYS'), brackets),
      'We [rotate]d the [keys], [Keys]!',
    );
    assert.equal(mark('misrotate', termPatterns('rotate'), brackets), 'misrotate', 'not inside a word');
    assert.equal(mark('分布式数据库系统', termPatterns('数据库'), brackets), '分布式[数据库]系统');
    assert.equal(mark('text', termPatterns('(IL-6) "x" AND'), brackets), 'text', 'punctuation is no pattern');
  });

  it('keeps a short text whole, whitespace collapsed', () => {
    assert.equal(snippetOf('Title\n\n  Body   text\n', termPatterns('body')), 'Title Body text');
  });

  it('starts a long text near the first match, cut at spaces and marked', () => {
    const text = `${'filler '.repeat(100)}the custodian rotates the key ${'tail '.repeat(100)}`;
    const snippet = snippetOf(text, termPatterns('Custodian'), 80);
    assert.match(snippet, /^….*the custodian rotates the key.*…$/);
    assert.ok(snippet.length <= 82);
    const words = new Set(['filler', 'the', 'custodian', 'rotates', 'key', 'tail']);
    assert.ok(
      snippet
        .slice(1, -1)
        .split(' ')
        .every((word) => words.has(word)),
      'cut at word boundaries',
    );
  });

  it('starts near an n-gram of an unspaced script too', () => {
    const text = `${'前'.repeat(400)}分布式数据库${'后'.repeat(400)}`;
    assert.match(snippetOf(text, termPatterns('数据库'), 40), /^….*数据库.*…$/);
  });

  it('cuts a snippet around the first match, with ellipses where text was left out', () => {
    const long = `${'a'.repeat(300)} needle ${'b'.repeat(300)}`;
    const snippet = snippetOf(long, termPatterns('needle'));
    assert.ok(snippet.startsWith('…') && snippet.endsWith('…'));
    assert.ok(snippet.includes('needle'));
    assert.equal(snippetOf('short  text\nhere', termPatterns('absent')), 'short text here');
  });

  it('prints rank, title, vault/path:lines, heading and snippet; colours only when asked', () => {
    const result = { hits: [hit], corrections: [] };
    assert.equal(
      formatHits(result, 'signing keys', { color: false }),
      '1. Keys  v/ops/keys.md:4-9\n   Setup > Rotation\n   We rotated the signing keys. Keyserver unrelated.\n',
    );
    const coloured = formatHits(result, 'signing keys', { color: true });
    const esc = '\x1b';
    assert.ok(coloured.includes(`${esc}[1mKeys${esc}[0m`));
    assert.ok(coloured.includes(`${esc}[1;33msigning${esc}[0m ${esc}[1;33mkeys${esc}[0m`));
    assert.equal(formatHits({ hits: [], corrections: [] }, 'x', { color: true }), 'no matches\n');
  });

  it('shows the snippet without markdown syntax, and says which words were searched instead of typos', () => {
    const markdown = { ...hit, text: '- [Rename the **current** session](tmux/rename.md) with `prefix $`' };
    const corrections = [{ from: 'renmae', to: 'rename' }];
    assert.equal(
      formatHits({ hits: [markdown], corrections }, 'renmae session', { color: false }),
      'searched for rename (not renmae)\n\n' +
        '1. Keys  v/ops/keys.md:4-9\n   Setup > Rotation\n   Rename the current session with prefix $\n',
    );
    const coloured = formatHits({ hits: [markdown], corrections }, 'renmae session', { color: true });
    assert.ok(coloured.includes('\x1b[1;33mRename\x1b[0m the current \x1b[1;33msession\x1b[0m'));
  });
});
