import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { runIndex } from '../../src/indexer/run-index.js';
import { asRow, text } from '../../src/store/rows.js';
import { indexChildScript, spawnNode } from '../../test-support/child.js';
import { assertConsistent, assertFtsIntact } from '../../test-support/consistency.js';
import { workspace } from '../../test-support/fixtures.js';
import { indexOptions } from '../../test-support/run.js';
import { testModelCache } from '../../test-support/test-model/test-model.js';

const FILES = 40;
const note = (i: number, version: number) =>
  `# Note ${i}\n\n## Part one\n\nVersion ${version} of note ${i}, first part with some words.\n\n## Part two\n\nVersion ${version}, second part.\n`;
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

describe('crash safety (kill -9 of a real indexer process)', () => {
  it('leaves every file either wholly old or wholly new, and a rerun completes', async (t) => {
    const notes = Object.fromEntries(Array.from({ length: FILES }, (_, i) => [`n/note-${i}.md`, note(i, 1)]));
    const ws = workspace(t, { v: notes });
    await runIndex(indexOptions(ws));
    const vault = path.join(ws.root, 'vaults', 'v');
    for (let i = 0; i < FILES; i += 1) writeFileSync(path.join(vault, 'n', `note-${i}.md`), note(i, 2));

    const child = spawnNode(t, indexChildScript(), [ws.configPath, ws.home, testModelCache()]);
    await child.waitForLine(/^committed /);
    child.process.kill('SIGKILL');
    await child.exited();
    const committed = child.lines.filter((l) => l.startsWith('committed ')).length;
    assert.ok(committed >= 1 && committed < FILES, `killed mid-run (${committed} of ${FILES} committed)`);
    assert.ok(!child.lines.some((l) => l.startsWith('done ')));

    const counts = assertConsistent(ws.config.indexPath, 384);
    assertFtsIntact(ws.config.indexPath);
    assert.equal(counts.files, FILES);
    const db = new Database(ws.config.indexPath, { readonly: true });
    const rows = db
      .prepare(
        "SELECT f.path, f.content_sha256 AS sha, group_concat(c.body, '\n') AS bodies FROM files f JOIN chunks c ON c.file_id = f.id GROUP BY f.id",
      )
      .all()
      .map(asRow)
      .map((row) => ({ path: text(row, 'path'), sha: text(row, 'sha'), bodies: text(row, 'bodies') }));
    db.close();
    let updated = 0;
    for (const row of rows) {
      const i = Number(/note-(\d+)/.exec(row.path)?.[1]);
      const version = row.sha === sha(note(i, 2)) ? 2 : 1;
      if (version === 2) updated += 1;
      else assert.equal(row.sha, sha(note(i, 1)), `${row.path} has a known version`);
      assert.match(row.bodies, new RegExp(`Version ${version} of note ${i}`), `${row.path}: chunks match its file row`);
      assert.doesNotMatch(row.bodies, new RegExp(`Version ${3 - version}`));
    }
    assert.ok(updated >= committed && updated < FILES, `${updated} files committed before the kill`);

    const rerun = await runIndex(indexOptions(ws));
    assert.deepEqual([rerun.updated + rerun.unchanged, rerun.failed.length], [FILES, 0]);
    assert.equal(rerun.updated, FILES - updated);
    assertConsistent(ws.config.indexPath, 384);
    assert.match(readFileSync(path.join(vault, 'n', 'note-0.md'), 'utf8'), /Version 2/);
  });
});
