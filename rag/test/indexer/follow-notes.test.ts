import assert from 'node:assert/strict';
import { rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { IndexFollower } from '../../src/indexer/index-follower.js';
import { runIndex } from '../../src/indexer/run-index.js';
import type { IndexSummary } from '../../src/indexer/types.js';
import { assertConsistent } from '../../test-support/consistency.js';
import { type Workspace, workspace } from '../../test-support/fixtures.js';
import { indexOptions } from '../../test-support/run.js';

const NOTES = { 'a.md': '# A\n\nalpha one\n', 'b.md': '# B\n\nbravo one\n', 'sub/c.md': '# C\n\ncharlie one\n' };

/** The indexed text of every note, by path. */
function indexed(ws: Workspace): Record<string, string> {
  const db = new Database(ws.config.indexPath, { readonly: true });
  try {
    const rows = db
      .prepare(
        "SELECT f.path, group_concat(c.body, ' ') AS body FROM files f JOIN chunks c ON c.file_id = f.id GROUP BY f.id",
      )
      .all() as { path: string; body: string }[];
    return Object.fromEntries(rows.map((row) => [row.path, row.body.trim()]));
  } finally {
    db.close();
  }
}

function edit(ws: Workspace, rel: string, text: string): void {
  writeFileSync(path.join(ws.root, 'vaults', 'v', rel), `# ${rel}\n\n${text}\n`);
}

describe('indexing some notes alone', () => {
  it('indexes only the notes named, removes a named note that is gone, and leaves every other note as it was', async (t) => {
    const ws = workspace(t, { v: NOTES }, 'none');
    await runIndex(indexOptions(ws));
    edit(ws, 'a.md', 'alpha two');
    edit(ws, 'b.md', 'bravo two');
    rmSync(path.join(ws.root, 'vaults', 'v', 'sub', 'c.md'));
    const run = await runIndex(indexOptions(ws, { notes: new Map([['v', ['a.md', 'sub/c.md', 'new.md']]]) }));
    assert.deepEqual([run.new, run.updated, run.removed, run.unchanged], [0, 1, 1, 0]);
    assert.deepEqual(indexed(ws), { 'a.md': 'alpha two', 'b.md': 'bravo one' });
    assertConsistent(ws.config.indexPath, 0);
    const whole = await runIndex(indexOptions(ws, { notes: new Map([['v', ['sub']]]) }));
    assert.equal(whole.updated, 1, 'a path that is no note: the vault is walked');
    assert.deepEqual(indexed(ws), { 'a.md': 'alpha two', 'b.md': 'bravo two' });
  });

  it('follows a change that names its note with a run over that note, and anything else with a walk', async (t) => {
    const ws = workspace(t, { v: NOTES }, 'none');
    const runs: IndexSummary[] = [];
    const follower = new IndexFollower({
      config: ws.config,
      modelCacheDir: '/nonexistent',
      onIndexed: (summary) => {
        runs.push(summary);
      },
      log: () => {},
      createIndex: true,
      debounceMs: 0,
    });
    t.after(() => follower.close());
    assert.equal(await follower.indexNow(), true);
    edit(ws, 'a.md', 'alpha two');
    edit(ws, 'b.md', 'bravo two');
    assert.equal(await follower.indexNow(new Map([['v', ['a.md']]])), true);
    assert.deepEqual(indexed(ws), { 'a.md': 'alpha two', 'b.md': 'bravo one', 'sub/c.md': 'charlie one' });
    assert.equal(await follower.indexNow(), true);
    assert.equal(indexed(ws)['b.md'], 'bravo two', 'a run without notes walks the vaults');

    // A vault with a symlink: a note may have a second path, so every change walks.
    symlinkSync(path.join(ws.root, 'vaults', 'v', 'sub'), path.join(ws.root, 'vaults', 'v', 'linked'));
    assert.equal(await follower.indexNow(), true);
    edit(ws, 'a.md', 'alpha three');
    edit(ws, 'b.md', 'bravo three');
    assert.equal(await follower.indexNow(new Map([['v', ['a.md']]])), true);
    assert.equal(indexed(ws)['b.md'], 'bravo three');
    assert.deepEqual(
      runs.map((run) => run.updated + run.new),
      [3, 1, 1, 1, 2],
    );
  });
});
