import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { listNotes } from '../../src/walk/list-notes.js';
import { walkVault } from '../../src/walk/walk-vault.js';
import { tempDir, writeFiles } from '../../test-support/fixtures.js';

function setup(t: TestContext) {
  const base = tempDir(t);
  const vault = path.join(base, 'vault');
  mkdirSync(path.join(base, 'home'), { recursive: true });
  writeFiles(vault, {
    'Root.md': '# r',
    'eng/keys.md': 'k',
    'eng/deep/more.markdown': 'm',
    'eng/folder.md/x.md': 'x',
    'zz/z.md': 'z',
  });
  // Sorted before `zz`, so a walk reaches zz's note through the link.
  symlinkSync(path.join(vault, 'zz'), path.join(vault, 'a-link'));
  symlinkSync(path.join(vault, 'Root.md'), path.join(vault, 'alias.md'));
  const diode = { allowedRoots: [base], homeDirs: [path.join(base, 'home')] };
  return { vault, diode, resolved: { id: 'v', path: vault, realPath: vault } };
}

describe('listNotes', () => {
  const table: readonly (readonly [string, readonly string[], readonly string[] | undefined])[] = [
    ['notes that are there, as a walk lists them', ['eng/keys.md', 'Root.md'], ['eng/keys.md', 'Root.md']],
    ['a note deeper down', ['eng/deep/more.markdown'], ['eng/deep/more.markdown']],
    ['a note that is gone, or whose folder is', ['eng/gone.md', 'nowhere/x.md'], []],
    ['one path given twice', ['Root.md', 'Root.md'], ['Root.md']],
    ['not a markdown name (a folder, another file): walk', ['eng'], undefined],
    ['a hidden component: walk', ['.obsidian/x.md'], undefined],
    ['an empty or parent component: walk', ['eng//keys.md', '../x.md'], undefined],
    ['through a symlinked folder: walk', ['a-link/z.md'], undefined],
    ['a symlinked note: walk', ['alias.md'], undefined],
    ['a folder under a note name: walk', ['eng/folder.md'], undefined],
  ];
  for (const [label, paths, expected] of table) {
    it(label, (t) => {
      const { diode, resolved } = setup(t);
      const listing = listNotes(resolved, diode, paths);
      assert.deepEqual(
        listing?.files.map((file) => file.path),
        expected,
      );
      if (expected === undefined || listing === undefined) return;
      const walked = walkVault(resolved, diode).files.filter((file) => expected.includes(file.path));
      assert.deepEqual(
        [...listing.files].sort((a, b) => a.path.localeCompare(b.path)),
        walked.sort((a, b) => a.path.localeCompare(b.path)),
        'the same entries a walk lists',
      );
    });
  }

  it('counts the notes and folders a walk reaches through a symlink', (t) => {
    const { diode, resolved } = setup(t);
    const walked = walkVault(resolved, diode);
    assert.equal(walked.links, 2);
    assert.ok(walked.files.some((file) => file.path === 'a-link/z.md'));
    assert.ok(
      !walked.files.some((file) => file.path === 'zz/z.md'),
      'the note has one path in the listing, not the one a watcher reports',
    );
  });
});
