import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { waitFor } from '@notegate/kit/testing';
import { isHiddenPath, watchVaults } from '../../src/walk/vault-watcher.js';
import { tempDir } from '../../test-support/fixtures.js';

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
});
