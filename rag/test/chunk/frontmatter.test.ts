import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseFrontmatter } from '../../src/chunk/frontmatter.js';

const lines = (text: string) => text.split('\n');

describe('parseFrontmatter', () => {
  it('reads title, aliases and tags and counts the block lines', () => {
    const fm = parseFrontmatter(
      lines('---\ntitle: Keys\naliases: [rollover, rotation]\ntags: [sec, "#ops"]\n---\n# Body'),
    );
    assert.deepEqual(fm, { title: 'Keys', aliases: ['rollover', 'rotation'], tags: ['sec', 'ops'], lineCount: 5 });
  });

  it('accepts "..." as the closing marker and a space-separated tag string', () => {
    const fm = parseFrontmatter(lines('---\ntags: a b\n...\ntext'));
    assert.deepEqual(fm.tags, ['a', 'b']);
    assert.equal(fm.lineCount, 3);
  });

  it('still fences off YAML that does not parse, so it is never embedded', () => {
    const fm = parseFrontmatter(lines('---\ntitle: [unclosed\n---\nbody'));
    assert.equal(fm.lineCount, 3);
    assert.equal(fm.title, undefined);
  });

  it('finds none without an opening line or without a closing one', () => {
    assert.equal(parseFrontmatter(lines('text\n---\ntitle: x\n---')).lineCount, 0);
    assert.equal(parseFrontmatter(lines('---\ntitle: x\nno end')).lineCount, 0);
    assert.equal(parseFrontmatter([]).lineCount, 0);
  });

  it('ignores a non-string title', () => {
    assert.equal(parseFrontmatter(lines('---\ntitle: {a: 1}\n---')).title, undefined);
    assert.equal(parseFrontmatter(lines('---\ntitle: 2024\n---')).title, '2024');
  });
});
