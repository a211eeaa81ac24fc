import assert from 'node:assert/strict';
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { waitFor } from '@notegate/kit/testing';
import { isHiddenPath, watchVaults } from '../../src/walk/vault-watcher.js';
import { tempDir } from '../../test-support/fixtures.js';

/** The inode numbers this process watches with inotify (Linux: the fdinfo of its inotify descriptors). */
function watchedInodes(): Set<number> {
  const inodes = new Set<number>();
  for (const fd of readdirSync('/proc/self/fd')) {
    let target: string;
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue;
    }
    if (target !== 'anon_inode:inotify') continue;
    for (const match of readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8').matchAll(
      /^inotify wd:\S+ ino:([0-9a-f]+) /gm,
    )) {
      inodes.add(Number.parseInt(match[1] ?? '', 16));
    }
  }
  return inodes;
}

/** A folder outside the vault with `count` folders in it, and their inode numbers. */
function outsideTree(root: string, count: number): { dir: string; inodes: number[] } {
  const dir = path.join(root, 'outside');
  for (let i = 0; i < count; i++) mkdirSync(path.join(dir, `d${i % 10}`, `e${i}`), { recursive: true });
  const folders = [dir, ...readdirSync(dir, { recursive: true }).map((name) => path.join(dir, String(name)))];
  return { dir, inodes: folders.map((folder) => statSync(folder).ino) };
}

const LINUX = { skip: process.platform !== 'linux' && 'reads the inotify watches from /proc' };

describe('watching vault folders', () => {
  const hidden: [string, boolean][] = [
    ['notes/plan.md', false],
    ['plan.md', false],
    ['.obsidian/app.json', true],
    ['notes/.plan.md.1a2b.tmp', true],
    ['.notegate/index.sqlite-wal', true],
  ];
  for (const [name, expected] of hidden) {
    it(`${name} is ${expected ? '' : 'not '}hidden`, () => assert.equal(isHiddenPath(name), expected));
  }

  it('reports a change in a new subfolder, and not one under a hidden folder', async (t) => {
    const root = tempDir(t);
    mkdirSync(path.join(root, '.obsidian'));
    const changes: string[] = [];
    const watcher = watchVaults(
      [{ id: 'v', path: root, realPath: root }],
      (id, name) => changes.push(`${id}:${name}`),
      assert.fail,
    );
    t.after(() => watcher.close());
    writeFileSync(path.join(root, '.obsidian', 'app.json'), '{}');
    mkdirSync(path.join(root, 'projects', 'deep'), { recursive: true });
    await waitFor('the folder event', () => changes.includes('v:projects'));
    writeFileSync(path.join(root, 'projects', 'deep', 'plan.md'), '# Plan\n');
    await waitFor('the note event', () => changes.includes('v:projects/deep/plan.md'));
    assert.deepEqual(
      changes.filter((change) => change.includes('.obsidian')),
      [],
    );
  });

  it('watches only inside the vault when a folder of it is swapped for a symlink', LINUX, async (t) => {
    const base = tempDir(t);
    const vault = path.join(base, 'vault');
    mkdirSync(path.join(vault, 'sub'), { recursive: true });
    const outside = outsideTree(base, 50);
    const changes: string[] = [];
    const watcher = watchVaults(
      [{ id: 'v', path: vault, realPath: vault }],
      (_id, name) => changes.push(name ?? ''),
      assert.fail,
    );
    t.after(() => watcher.close());
    renameSync(path.join(vault, 'sub'), path.join(base, 'old-sub'));
    symlinkSync(outside.dir, path.join(vault, 'sub'));
    await waitFor('the swap to be seen', () => changes.some((name) => name === 'sub' || name.startsWith('sub/')));
    await new Promise((resolve) => setImmediate(resolve));
    const watched = watchedInodes();
    assert.ok(watched.has(statSync(vault).ino), 'the vault folder is still watched');
    assert.deepEqual(
      outside.inodes.filter((inode) => watched.has(inode)),
      [],
      'no folder of the link target is watched',
    );
    writeFileSync(path.join(vault, 'plan.md'), '# Plan\n');
    await waitFor('a change in the vault', () => changes.includes('plan.md'));
  });

  it('lets the vault folder go when it is swapped for a symlink, and says so', LINUX, async (t) => {
    const base = tempDir(t);
    const vault = path.join(base, 'vault');
    mkdirSync(path.join(vault, 'notes'), { recursive: true });
    const outside = outsideTree(base, 50);
    const errors: string[] = [];
    const changes: (string | undefined)[] = [];
    const watcher = watchVaults(
      [{ id: 'v', path: vault, realPath: vault }],
      (_id, name) => changes.push(name),
      (_id, err) => errors.push(err.message),
    );
    t.after(() => watcher.close());
    renameSync(vault, path.join(base, 'old-vault'));
    symlinkSync(outside.dir, vault);
    await waitFor('the swap to be seen', () => changes.length > 0);
    await new Promise((resolve) => setImmediate(resolve));
    const watched = watchedInodes();
    assert.deepEqual(
      outside.inodes.filter((inode) => watched.has(inode)),
      [],
      'no folder of the link target is watched',
    );
    await waitFor('the error', () => errors.length > 0);
    assert.match(errors[0] ?? '', /the vault folder .*vault was moved, removed or replaced; not following it/);
  });
});
