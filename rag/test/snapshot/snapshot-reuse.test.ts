import assert from 'node:assert/strict';
import { utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { runIndex } from '../../src/indexer/run-index.js';
import type { IndexSnapshot } from '../../src/snapshot/index-snapshot.js';
import { workspace } from '../../test-support/fixtures.js';
import { indexOptions } from '../../test-support/run.js';
import { hitsOf, type RunningServer, startSearchServer } from '../../test-support/serve.js';

const NOTES = {
  'ops/keys.md': '# Keys\n\n## Rotation\n\nRotate the signing keys every ninety days.\n',
  'readme.md': '# Readme\n\nAlpha release notes for the signing service.\n',
};

function snapshotOf(server: RunningServer): IndexSnapshot {
  const state = server.snapshots.current;
  assert.equal(state.kind, 'ready');
  return state.snapshot;
}

/** Makes the server pick up the last commit, as its poll would. */
async function follow(server: RunningServer): Promise<IndexSnapshot> {
  server.snapshots.check();
  await server.snapshots.settled();
  return snapshotOf(server);
}

async function health(server: RunningServer): Promise<{ last_indexed_at: string; reload_pending: boolean }> {
  return (
    (await server.request({ path: '/health' })).body as { index: { last_indexed_at: string; reload_pending: boolean } }
  ).index;
}

describe('snapshot refresh', () => {
  it('keeps the loaded vectors when an index run changed only metadata, and reloads them when vectors changed', async (t) => {
    const ws = workspace(t, { notes: NOTES });
    const server = await startSearchServer(t, ws);
    const query = { query: 'signing keys', top: 5 };
    const first = snapshotOf(server);
    const hits = hitsOf(await server.search(query));
    assert.equal(hits.length, 2);
    const before = await health(server);

    // A no-op run commits only its finish (fingerprint, last_indexed_at): a new snapshot, the same vectors.
    const noop = await runIndex(indexOptions(ws, { clock: () => Date.parse(before.last_indexed_at) + 60_000 }));
    assert.deepEqual([noop.new, noop.updated, noop.removed, noop.unchanged], [0, 0, 0, 2]);
    const second = await follow(server);
    assert.notEqual(second, first, 'the snapshot swapped');
    assert.equal(second.vectors, first.vectors, 'the vectors were not loaded again');
    const fresh = await health(server);
    assert.ok(
      fresh.last_indexed_at > before.last_indexed_at,
      `${fresh.last_indexed_at} after ${before.last_indexed_at}`,
    );
    assert.equal(fresh.reload_pending, false);
    assert.deepEqual(hitsOf(await server.search(query)), hits);

    // A touched file: its mtime is committed, its chunks and vectors are not; search answers as before.
    const keys = path.join(ws.root, 'vaults', 'notes', 'ops', 'keys.md');
    utimesSync(keys, new Date(), new Date(Date.now() + 120_000));
    const touched = await runIndex(indexOptions(ws));
    assert.deepEqual([touched.new, touched.updated, touched.unchanged], [0, 0, 2]);
    const third = await follow(server);
    assert.notEqual(third, second);
    assert.equal(third.vectors, first.vectors);
    assert.deepEqual(hitsOf(await server.search(query)), hits);

    // New content: the vectors are loaded again and the new text is found.
    writeFileSync(keys, '# Keys\n\n## Rotation\n\nRotate the signing keys every thirty days.\n');
    const updated = await runIndex(indexOptions(ws));
    assert.equal(updated.updated, 1);
    const fourth = await follow(server);
    assert.notEqual(fourth.vectors, first.vectors, 'changed vectors are loaded');
    const now = hitsOf(await server.search(query));
    assert.match(String(now.find((h) => h.path === 'ops/keys.md')?.text), /thirty days/);

    // An index whose generation is unknown (written before it was recorded) is always loaded again.
    const alter = (sql: string) => {
      const raw = new Database(ws.config.indexPath);
      raw.exec(sql);
      raw.close();
    };
    alter("DELETE FROM meta WHERE key = 'vectors_generation'");
    const fifth = await follow(server);
    assert.notEqual(fifth.vectors, fourth.vectors);
    alter("UPDATE meta SET value = '1' WHERE key = 'last_indexed_at_ms'");
    const sixth = await follow(server);
    assert.notEqual(sixth, fifth);
    assert.notEqual(sixth.vectors, fifth.vectors);
    assert.deepEqual(hitsOf(await server.search(query)), now);
  });
});
