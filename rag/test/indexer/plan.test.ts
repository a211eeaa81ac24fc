import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_FILE_BYTES, planVault } from '../../src/indexer/plan.js';
import type { FileRow } from '../../src/store/index-contents.js';
import type { VaultFile } from '../../src/walk/walk-vault.js';

const file = (path: string, mtimeMs = 10, sizeBytes = 100): VaultFile => ({
  vault: 'v',
  path,
  namespace: '',
  realPath: `/v/${path}`,
  mtimeMs,
  sizeBytes,
});
const row = (id: number, path: string, mtimeMs = 10, sizeBytes = 100, fingerprint = 'fp'): FileRow => ({
  id,
  path,
  mtimeMs,
  sizeBytes,
  contentSha256: 'sha',
  fingerprint,
});

describe('planVault', () => {
  it('skips reading files whose mtime, size and fingerprint are unchanged', () => {
    const plan = planVault([file('a.md')], [], new Map([['a.md', row(1, 'a.md')]]), 'fp');
    assert.deepEqual([plan.unchanged, plan.candidates.length, plan.removedIds], [1, 0, []]);
  });

  it('checks files that are new or whose mtime, size or fingerprint moved', () => {
    const rows = new Map([
      ['mtime.md', row(1, 'mtime.md', 9)],
      ['size.md', row(2, 'size.md', 10, 99)],
      ['model.md', row(3, 'model.md', 10, 100, 'old-fp')],
    ]);
    const plan = planVault([file('mtime.md'), file('size.md'), file('model.md'), file('new.md')], [], rows, 'fp');
    assert.deepEqual(
      plan.candidates.map((c) => [c.file.path, c.row?.id]),
      [
        ['mtime.md', 1],
        ['size.md', 2],
        ['model.md', 3],
        ['new.md', undefined],
      ],
    );
  });

  it('removes rows of deleted files and of files that are skipped now', () => {
    const rows = new Map([
      ['gone.md', row(1, 'gone.md')],
      ['huge.md', row(2, 'huge.md')],
      ['linked.md', row(3, 'linked.md')],
    ]);
    const walkSkipped = [{ vault: 'v', path: 'linked.md', reason: 'symlink_outside_vault' as const, detail: 'x' }];
    const plan = planVault([file('huge.md', 10, MAX_FILE_BYTES + 1)], walkSkipped, rows, 'fp');
    assert.deepEqual(plan.removedIds, [1, 2, 3]);
    assert.deepEqual(
      plan.skipped.map((s) => [s.path, s.reason]),
      [
        ['linked.md', 'symlink_outside_vault'],
        ['huge.md', 'too_large'],
      ],
    );
  });
});
