import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkDiode, isInside, isPersonalCloudPath } from '../../src/config/diode-policy.js';

const home = '/Users/ada';

describe('isInside', () => {
  it('accepts the folder itself and anything below, nothing beside it', () => {
    assert.equal(isInside('/a/b', '/a/b'), true);
    assert.equal(isInside('/a/b/c/d.md', '/a/b'), true);
    assert.equal(isInside('/a/bc', '/a/b'), false);
    assert.equal(isInside('/a', '/a/b'), false);
    assert.equal(isInside('/a/b/..x/y', '/a/b'), true);
  });
});

describe('isPersonalCloudPath (the diode policy)', () => {
  const cases: [string, boolean][] = [
    [`${home}/Library/Mobile Documents`, true],
    [`${home}/Library/Mobile Documents/iCloud~md~obsidian/Documents/Personal`, true],
    [`${home}/Library/Mobile Documents/com~apple~CloudDocs/notes`, true],
    [`${home}/library/mobile documents/x`, true],
    [`${home}/Library/CloudStorage/iCloudDrive/Obsidian`, true],
    [`${home}/Library/CloudStorage/iCloud Drive`, true],
    [`${home}/Library/CloudStorage/Dropbox/notes`, false],
    [`${home}/Library/Application Support/notes`, false],
    [`${home}/work/Library/Mobile Documents`, false],
    ['/Library/Mobile Documents/x', false],
    [`${home}/Documents/vault`, false],
  ];
  for (const [candidate, expected] of cases) {
    it(`${expected ? 'rejects' : 'allows'} ${candidate}`, () => {
      assert.equal(isPersonalCloudPath(candidate, [home]), expected);
    });
  }

  it('checks every spelling of the home directory', () => {
    assert.equal(
      isPersonalCloudPath('/System/Volumes/Data/Users/ada/Library/Mobile Documents', [
        home,
        '/System/Volumes/Data/Users/ada',
      ]),
      true,
    );
  });
});

describe('checkDiode', () => {
  const context = { allowedRoots: ['/work/repo', home], homeDirs: [home] };

  it('allows a path under an allowed root', () => {
    assert.deepEqual(checkDiode(['/work/repo/vaults/a'], context), { allowed: true });
  });

  it('refuses a path outside every allowed root, naming the diode policy and the path', () => {
    const verdict = checkDiode(['/srv/notes'], context);
    assert.equal(verdict.allowed, false);
    assert.ok(!verdict.allowed && verdict.reason === 'outside_allowed_roots');
    assert.match(verdict.allowed ? '' : verdict.message, /^diode policy: \/srv\/notes is outside allowed_roots/);
  });

  it('refuses the iCloud container even under an allowed root', () => {
    const verdict = checkDiode([`${home}/Library/Mobile Documents/iCloud~md~obsidian/Documents/P`], context);
    assert.ok(!verdict.allowed && verdict.reason === 'personal_cloud');
    assert.match(
      verdict.allowed ? '' : verdict.message,
      /^diode policy: .*iCloud~md~obsidian.* iCloud Drive container/,
    );
  });

  it('judges the real path when the written path is a symlink into the container', () => {
    const verdict = checkDiode(['/work/repo/vaults/link', `${home}/Library/CloudStorage/iCloudDrive/x`], context);
    assert.ok(!verdict.allowed && verdict.reason === 'personal_cloud');
  });
});
