import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileExcludes } from '../../src/config/exclude-globs.js';

function rulesOf(globs: readonly string[]) {
  const checked = compileExcludes(globs);
  if (!checked.ok) throw new Error(checked.problem);
  return checked.rules;
}

describe('compileExcludes', () => {
  // [glob, path, is a folder, excluded]
  const cases: readonly (readonly [string, string, boolean, boolean])[] = [
    ['*.excalidraw.md', 'plan.excalidraw.md', false, true],
    ['*.excalidraw.md', 'drawings/deep/plan.excalidraw.md', false, true],
    ['*.excalidraw.md', 'plan.md', false, false],
    ['templates', 'templates', true, true],
    ['templates', 'work/templates', true, true],
    ['templates', 'templates.md', false, false],
    ['templates/', 'templates', true, true],
    ['templates/', 'templates', false, false],
    ['/archive', 'archive', true, true],
    ['/archive', 'old/archive', true, false],
    ['daily/2019-*', 'daily/2019-01-01.md', false, true],
    ['daily/2019-*', 'daily/2020-01-01.md', false, false],
    ['daily/2019-*', 'x/daily/2019-01-01.md', false, false],
    ['daily/*.md', 'daily/sub/a.md', false, false],
    ['daily/**/*.md', 'daily/a.md', false, true],
    ['daily/**/*.md', 'daily/sub/deep/a.md', false, true],
    ['**/drafts', 'drafts', true, true],
    ['**/drafts', 'a/b/drafts', true, true],
    ['attachments/**', 'attachments/x/y.md', false, true],
    ['attachments/**', 'attachments', true, false],
    ['note?.md', 'note1.md', false, true],
    ['note?.md', 'note10.md', false, false],
    ['[0-9]*.md', '2024-01-01.md', false, true],
    ['[0-9]*.md', 'today.md', false, false],
    ['[!0-9]*.md', 'today.md', false, true],
    ['[!0-9]*.md', '2024.md', false, false],
    ['\\[draft\\]*', '[draft] plan.md', false, true],
    ['\\[draft\\]*', 'd plan.md', false, false],
    ['Café.md', 'Café.md', false, true],
    ['a.md', 'aXmd', false, false],
  ];
  for (const [glob, path, folder, excluded] of cases) {
    it(`${JSON.stringify(glob)} ${excluded ? 'excludes' : 'keeps'} ${folder ? 'folder' : 'file'} ${path}`, () => {
      assert.equal(rulesOf([glob]).matches(path, folder), excluded);
    });
  }

  it('excludes what any of several globs matches, and nothing without globs', () => {
    const rules = rulesOf(['templates', '*.canvas.md']);
    assert.equal(rules.matches('templates', true), true);
    assert.equal(rules.matches('board.canvas.md', false), true);
    assert.equal(rules.matches('notes.md', false), false);
    assert.equal(rulesOf([]).matches('anything.md', false), false);
  });

  const malformed: readonly (readonly [string, string])[] = [
    ['', 'an exclude glob must not be blank'],
    ['   ', 'an exclude glob must not be blank'],
    ['!keep.md', 'negation (a leading !) is not supported; leave the file out of the list instead'],
    ['drafts[', 'has an unclosed [ at character 7'],
    ['a**/b', '** must be a whole path segment (a/**/b)'],
    ['a//b', 'has an empty path segment (//, or only /)'],
    ['/', 'has an empty path segment (//, or only /)'],
    ['../outside', "has a '..' segment; globs are relative to the vault"],
    ['{a,b}.md', 'braces are not supported; write one glob per alternative (or escape them: \\{)'],
    ['trailing\\', 'ends in a lone \\ (escape what follows it)'],
    ['[z-a].md', 'has a character class that is not valid (a range such as [z-a])'],
  ];
  for (const [glob, problem] of malformed) {
    it(`refuses ${JSON.stringify(glob)}, naming it`, () => {
      assert.deepEqual(compileExcludes(['fine/**', glob]), {
        ok: false,
        problem: `${JSON.stringify(glob)}: ${problem}`,
      });
    });
  }
});
