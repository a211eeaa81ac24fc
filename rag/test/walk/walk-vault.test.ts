import assert from 'node:assert/strict';
import { mkdirSync, renameSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { compileExcludes } from '../../src/config/exclude-globs.js';
import { walkVault } from '../../src/walk/walk-vault.js';
import { tempDir, writeFiles } from '../../test-support/fixtures.js';

function setup(t: import('node:test').TestContext) {
  const base = tempDir(t);
  const vault = path.join(base, 'vault');
  const home = path.join(base, 'home');
  mkdirSync(vault, { recursive: true });
  mkdirSync(home, { recursive: true });
  const diode = { allowedRoots: [base], homeDirs: [home] };
  return { base, vault, home, diode, resolved: { id: 'v', path: vault, realPath: vault } };
}

describe('walkVault', () => {
  it('lists markdown files with vault-relative paths and top-level namespaces, skipping hidden folders', (t) => {
    const { vault, diode, resolved } = setup(t);
    writeFiles(vault, {
      'Root.md': '# r',
      'eng/keys.md': 'k',
      'eng/deep/more.markdown': 'm',
      'eng/image.png': 'x',
      '.obsidian/workspace.md': 'hidden',
      '.trash/old.md': 'hidden',
      'eng/.git/x.md': 'hidden',
      'people/.draft.md': 'hidden',
      'people/a.MD': 'upper-case extension',
    });
    const listing = walkVault(resolved, diode);
    assert.deepEqual(
      listing.files.map((f) => [f.path, f.namespace]),
      [
        ['Root.md', ''],
        ['eng/deep/more.markdown', 'eng'],
        ['eng/keys.md', 'eng'],
        ['people/a.MD', 'people'],
      ],
    );
    assert.deepEqual(listing.skipped, []);
    assert.equal(listing.files[1]?.sizeBytes, 1);
  });

  it('does not enter an excluded folder nor list an excluded file, and records neither as skipped', (t) => {
    const { base, vault, diode, resolved } = setup(t);
    writeFiles(vault, { 'keep.md': 'k', 'templates/daily.md': 't', 'work/plan.canvas.md': 'c', 'work/plan.md': 'p' });
    writeFiles(base, { 'elsewhere/x.md': 'outside' });
    // An excluded symlink that leaves the vault is not even resolved: no skip reason for it.
    symlinkSync(path.join(base, 'elsewhere'), path.join(vault, 'linked'));
    const checked = compileExcludes(['templates/', '*.canvas.md', 'linked']);
    assert.ok(checked.ok);
    const listing = walkVault({ ...resolved, exclude: checked.rules }, diode);
    assert.deepEqual(
      listing.files.map((f) => f.path),
      ['keep.md', 'work/plan.md'],
    );
    assert.deepEqual(listing.skipped, []);
  });

  it('follows a symlink that stays inside the vault, and never one that leaves it', (t) => {
    const { base, vault, diode, resolved } = setup(t);
    writeFiles(vault, { 'a/note.md': 'inside' });
    writeFiles(base, { 'outside/secret.md': 'outside', 'outside.md': 'outside' });
    symlinkSync(path.join(vault, 'a'), path.join(vault, 'b'));
    symlinkSync(path.join(base, 'outside'), path.join(vault, 'escape'));
    symlinkSync(path.join(base, 'outside.md'), path.join(vault, 'escape.md'));
    const listing = walkVault(resolved, diode);
    assert.deepEqual(
      listing.files.map((f) => f.path),
      ['a/note.md'],
      'b is the same real folder as a: walked once',
    );
    assert.deepEqual(
      listing.skipped.map((s) => [s.path, s.reason]),
      [
        ['escape', 'symlink_outside_vault'],
        ['escape.md', 'symlink_outside_vault'],
      ],
    );
  });

  it('refuses a symlink into the iCloud container with the diode policy as the reason', (t) => {
    const { home, vault, diode, resolved } = setup(t);
    const personal = path.join(home, 'Library', 'Mobile Documents', 'iCloud~md~obsidian', 'Documents');
    writeFiles(personal, { 'diary.md': 'personal' });
    symlinkSync(personal, path.join(vault, 'personal'));
    symlinkSync(path.join(personal, 'diary.md'), path.join(vault, 'diary.md'));
    const listing = walkVault(resolved, { ...diode, allowedRoots: [...diode.allowedRoots, home] });
    assert.deepEqual(listing.files, []);
    assert.deepEqual(
      listing.skipped.map((s) => s.reason),
      ['diode_policy', 'diode_policy'],
    );
    assert.match(listing.skipped[0]?.detail ?? '', /^diode policy: .*Mobile Documents.*iCloud Drive container/);
  });

  it('reports a broken symlink to a note as unreadable and survives symlink loops', (t) => {
    const { vault, diode, resolved } = setup(t);
    writeFiles(vault, { 'n/x.md': 'x' });
    symlinkSync(path.join(vault, 'missing.md'), path.join(vault, 'gone.md'));
    symlinkSync(vault, path.join(vault, 'n', 'loop'));
    const listing = walkVault(resolved, diode);
    assert.deepEqual(
      listing.files.map((f) => f.path),
      ['n/x.md'],
    );
    assert.deepEqual(
      listing.skipped.map((s) => [s.path, s.reason]),
      [['gone.md', 'unreadable']],
    );
  });

  it('does not enter a vault folder swapped for a link, and says why', (t) => {
    const { base, vault, diode, resolved } = setup(t);
    writeFiles(path.join(base, 'outside'), { 'secret.md': 's' });
    renameSync(vault, path.join(base, 'old-vault'));
    symlinkSync(path.join(base, 'outside'), vault);
    const listing = walkVault(resolved, diode);
    assert.deepEqual(listing.files, []);
    assert.deepEqual(
      listing.skipped.map((s) => [s.path, s.reason, s.detail]),
      [['.', 'unreadable', `the folder was replaced by a link to ${path.join(base, 'outside')}`]],
    );
  });
});
