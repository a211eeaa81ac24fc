import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatHits, mark, snippetOf, termPatterns } from '../../src/cli/search-output.js';
import type { SearchHit } from '../../src/search/hybrid-search.js';

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

  it('cuts a snippet around the first match, with ellipses where text was left out', () => {
    const long = `${'a'.repeat(300)} needle ${'b'.repeat(300)}`;
    const snippet = snippetOf(long, termPatterns('needle'));
    assert.ok(snippet.startsWith('…') && snippet.endsWith('…'));
    assert.ok(snippet.includes('needle'));
    assert.equal(snippetOf('short  text\nhere', termPatterns('absent')), 'short text here');
  });

  it('prints rank, title, vault/path:lines, heading and snippet; colours only when asked', () => {
    assert.equal(
      formatHits([hit], 'signing keys', { color: false }),
      '1. Keys  v/ops/keys.md:4-9\n   Setup > Rotation\n   We rotated the signing keys. Keyserver unrelated.\n',
    );
    const coloured = formatHits([hit], 'signing keys', { color: true });
    const esc = '\x1b';
    assert.ok(coloured.includes(`${esc}[1mKeys${esc}[0m`));
    assert.ok(coloured.includes(`${esc}[1;33msigning${esc}[0m ${esc}[1;33mkeys${esc}[0m`));
    assert.equal(formatHits([], 'x', { color: true }), 'no matches\n');
  });
});
