import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { findRepositoryRoot } from '../../src/config/repo-root.js';
import { tempDir } from '../../test-support/fixtures.js';

describe('findRepositoryRoot', () => {
  it('prefers the nearest ancestor holding .git, directory or file', (t) => {
    const base = tempDir(t);
    const worktree = path.join(base, 'outer', 'worktree');
    mkdirSync(path.join(base, 'outer', '.git'), { recursive: true });
    mkdirSync(path.join(worktree, 'rag', 'deep'), { recursive: true });
    writeFileSync(path.join(worktree, '.git'), 'gitdir: /elsewhere\n');
    assert.equal(findRepositoryRoot(path.join(worktree, 'rag', 'deep')), worktree);
  });

  it('falls back to the nearest package.json that declares workspaces', (t) => {
    const base = tempDir(t);
    mkdirSync(path.join(base, 'mono', 'rag'), { recursive: true });
    writeFileSync(path.join(base, 'mono', 'package.json'), JSON.stringify({ workspaces: ['rag'] }));
    writeFileSync(path.join(base, 'mono', 'rag', 'package.json'), JSON.stringify({ name: 'x' }));
    assert.equal(findRepositoryRoot(path.join(base, 'mono', 'rag')), path.join(base, 'mono'));
  });

  it('uses the fallback when neither exists', (t) => {
    const base = tempDir(t);
    assert.equal(findRepositoryRoot(base, '/fallback'), '/fallback');
    assert.equal(findRepositoryRoot(base), base);
  });
});
