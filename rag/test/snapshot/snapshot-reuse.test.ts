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
  it('keeps the in-memory index when an index run changed only metadata, follows changed chunks, and loads another log whole', async (t) => {
    const ws = workspace(t, { notes: NOTES });
    const server = await startSearchServer(t, ws);
    const query = { query: 'signing keys', top: 5 };
    const first = snapshotOf(server);
    assert.equal(first.load.kind, 'whole');
    const hits = hitsOf(await server.search(query));
    assert.equal(hits.length, 2);
    const before = await health(server);

    // A no-op run commits only its finish (fingerprint, last_indexed_at): a new snapshot, the same segments.
    const noop = await runIndex(indexOptions(ws, { clock: () => Date.parse(before.last_indexed_at) + 60_000 }));
    assert.deepEqual([noop.new, noop.updated, noop.removed, noop.unchanged], [0, 0, 0, 2]);
    const second = await follow(server);
    assert.notEqual(second, first, 'the snapshot swapped');
    assert.equal(second.load.kind, 'same');
    assert.equal(second.segments, first.segments, 'nothing was loaded again');
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
    assert.equal(third.segments, first.segments);
    assert.deepEqual(hitsOf(await server.search(query)), hits);

    // New content: the file's old chunk is deleted in place, its new one is a segment of its own.
    writeFileSync(keys, '# Keys\n\n## Rotation\n\nRotate the signing keys every thirty days.\n');
    const updated = await runIndex(indexOptions(ws));
    assert.equal(updated.updated, 1);
    const fourth = await follow(server);
    assert.deepEqual(fourth.load, { kind: 'changes', changes: 2 });
    const [base, added] = fourth.segments.states;
    assert.equal(base?.segment, first.segments.states[0]?.segment, 'the loaded segment is kept');
    assert.deepEqual([base?.deletedCount, added?.segment.rowCount, fourth.segments.states.length], [1, 1, 2]);
    const now = hitsOf(await server.search(query));
    assert.match(String(now.find((h) => h.path === 'ops/keys.md')?.text), /thirty days/);

    // Another change log (a rebuild, or a file put in place of the index) is loaded whole.
    const raw = new Database(ws.config.indexPath);
    raw.exec("UPDATE meta SET value = 'another log' WHERE key = 'change_log_id'");
    raw.close();
    const fifth = await follow(server);
    assert.deepEqual(
      [fifth.load.kind, fifth.load.kind === 'whole' && fifth.load.reason],
      ['whole', 'the index was rebuilt'],
    );
    assert.equal(fifth.segments.states.length, 1);
    assert.deepEqual(hitsOf(await server.search(query)), now);
  });
});
