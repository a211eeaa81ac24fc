import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { seededRandom } from '@notegate/kit/testing';
import { idOrderOf, Segment } from '../../src/snapshot/segment.js';
import { SegmentSet } from '../../src/snapshot/segment-set.js';
import { ScanThread } from '../../src/vectors/scan-thread-client.js';
import { signCodesOf } from '../../src/vectors/sign-codes.js';
import { type RowRange, rangesFor } from '../../src/vectors/vector-scan.js';
import { matrixOf, unit } from '../../test-support/vector-matrices.js';

const DIMENSION = 48;

/** A segment of `count` clustered rows, chunk ids from `firstId`; sign codes when `approximate`. */
function segmentOf(random: () => number, count: number, firstId: number, approximate: boolean): Segment {
  const centres = Array.from({ length: 4 }, () => unit(random, DIMENSION));
  const vectors = Array.from({ length: count }, (_, i) => unit(random, DIMENSION, centres[i % 4], 0.4));
  const base = matrixOf(vectors, (i) => (i % 3 === 0 ? 'a' : 'b'), DIMENSION);
  const matrix = { ...base, chunkIds: base.chunkIds.map((id) => id + firstId - 1) };
  return new Segment({
    matrix,
    int8: undefined,
    codes: approximate ? signCodesOf(matrix) : undefined,
    words: undefined,
    idOrder: idOrderOf(matrix.chunkIds),
  });
}

/**
 * Two segments searched through sign codes (3,000 rows: a top 10 rescores 100 of them, so the scan
 * is approximate) and one scanned exactly, with rows deleted in two of them.
 */
function segmentSet(): SegmentSet {
  const random = seededRandom(29);
  const set = SegmentSet.of([
    segmentOf(random, 3_000, 1, true),
    segmentOf(random, 200, 10_001, false),
    segmentOf(random, 3_000, 20_001, true),
  ]);
  return set.withDeletions(
    new Map([
      [0, { rows: [0, 7, 8, 1_500], deletedPostings: undefined }],
      [2, { rows: [3, 2_999], deletedPostings: undefined }],
    ]),
  );
}

type Case = { readonly query: Float32Array; readonly k: number; readonly vaults: readonly string[] | undefined };

function cases(): Case[] {
  const random = seededRandom(31);
  return Array.from({ length: 12 }, (_, i) => ({
    query: unit(random, DIMENSION),
    k: [1, 10, 40][i % 3] as number,
    vaults: i % 2 === 0 ? undefined : ['a'],
  }));
}

const rangesOf =
  (vaults: readonly string[] | undefined) =>
  (segment: Segment): readonly RowRange[] =>
    rangesFor(segment.matrix, vaults, undefined);

describe('scan thread', () => {
  it("gives the serving thread's hits, to the bit, for the scans it runs and for those taken back", async (t) => {
    const set = segmentSet();
    const thread = new ScanThread();
    t.after(() => thread.close());
    assert.equal(await thread.ready(), true);
    let posted = 0;
    // A scan is left to the thread for a moment (it may still not have begun: then it is taken back).
    for (let round = 0; round < 50 && (round < 2 || thread.counts.scannedThere === 0); round += 1) {
      for (const { query, k, vaults } of cases()) {
        const alone = set.nearest(query, k, rangesOf(vaults));
        assert.equal(alone.length, k);
        const begun = set.beginNearest(query, k, rangesOf(vaults), thread);
        posted += 1;
        if (round % 2 === 0) await sleep(5);
        assert.deepEqual(begun.rows(), alone);
      }
    }
    const { scannedThere, takenBack } = thread.counts;
    assert.ok(scannedThere > 0, JSON.stringify(thread.counts));
    assert.equal(scannedThere + takenBack, posted);
  });

  it('posts nothing until the thread is ready, and nothing for a set without sign codes', async (t) => {
    const set = segmentSet();
    const thread = new ScanThread();
    t.after(() => thread.close());
    const [{ query, k, vaults }] = cases() as [Case];
    // Just started: the thread cannot have loaded yet.
    assert.deepEqual(
      set.beginNearest(query, k, rangesOf(vaults), thread).rows(),
      set.nearest(query, k, rangesOf(vaults)),
    );
    assert.deepEqual(thread.counts, { scannedThere: 0, takenBack: 0 });
    assert.equal(await thread.ready(), true);
    const exactOnly = SegmentSet.of([set.stateAt(1).segment]);
    assert.deepEqual(exactOnly.codeMemories().size, 0);
    exactOnly.beginNearest(query, k, rangesOf(vaults), thread).rows();
    assert.deepEqual(thread.counts, { scannedThere: 0, takenBack: 0 });
  });

  it('takes back a scan the thread has not begun', async (t) => {
    const set = segmentSet();
    const thread = new ScanThread({ entry: new URL('../../test-support/scan-threads/idle.js', import.meta.url) });
    t.after(() => thread.close());
    assert.equal(await thread.ready(), true);
    for (const { query, k, vaults } of cases()) {
      assert.deepEqual(
        set.beginNearest(query, k, rangesOf(vaults), thread).rows(),
        set.nearest(query, k, rangesOf(vaults)),
      );
    }
    assert.deepEqual(thread.counts, { scannedThere: 0, takenBack: cases().length });
  });

  it('stops waiting for a thread that stalls in a scan, and posts no more', async (t) => {
    const set = segmentSet();
    const entry = new URL('../../test-support/scan-threads/stalling.js', import.meta.url);
    const thread = new ScanThread({ entry, claimedScanTimeoutMs: 50 });
    t.after(() => thread.close());
    assert.equal(await thread.ready(), true);
    const [first, second] = cases() as [Case, Case];
    const alone = set.nearest(first.query, first.k, rangesOf(first.vaults));
    // The stalling thread claims a scan once it has read it; the serving thread then waits for it, and gives up.
    let stalled = false;
    for (let attempt = 0; attempt < 200 && !stalled; attempt += 1) {
      const begun = set.beginNearest(first.query, first.k, rangesOf(first.vaults), thread);
      await sleep(10);
      assert.deepEqual(begun.rows(), alone);
      stalled = !(await thread.ready());
    }
    assert.equal(stalled, true);
    const { takenBack } = thread.counts;
    set.beginNearest(second.query, second.k, rangesOf(second.vaults), thread).rows();
    assert.deepEqual(thread.counts, { scannedThere: 0, takenBack });
  });

  it('scans on the serving thread when the thread cannot start', async (t) => {
    const set = segmentSet();
    const thread = new ScanThread({ entry: new URL('../../test-support/scan-threads/missing.js', import.meta.url) });
    t.after(() => thread.close());
    assert.equal(await thread.ready(), false);
    const [{ query, k, vaults }] = cases() as [Case];
    assert.deepEqual(
      set.beginNearest(query, k, rangesOf(vaults), thread).rows(),
      set.nearest(query, k, rangesOf(vaults)),
    );
    assert.deepEqual(thread.counts, { scannedThere: 0, takenBack: 0 });
  });

  it('is stopped when a segment it was sent leaves the index, and follows the next', async (t) => {
    const set = segmentSet();
    const thread = new ScanThread();
    t.after(() => thread.close());
    assert.equal(await thread.ready(), true);
    const [{ query, k, vaults }] = cases() as [Case];
    set.beginNearest(query, k, rangesOf(vaults), thread).rows();
    // The same segments: the thread stays, and takes the next scan.
    thread.follow(set.codeMemories());
    assert.equal(await thread.ready(), true);
    const before = thread.counts;
    set.beginNearest(query, k, rangesOf(vaults), thread).rows();
    assert.equal(thread.counts.scannedThere + thread.counts.takenBack, before.scannedThere + before.takenBack + 1);
    // The first segment left: a new thread, not ready at once.
    const without = SegmentSet.of([set.stateAt(1).segment, set.stateAt(2).segment]);
    thread.follow(without.codeMemories());
    const stopped = thread.counts;
    without.beginNearest(query, k, rangesOf(vaults), thread).rows();
    assert.deepEqual(thread.counts, stopped);
    assert.equal(await thread.ready(), true);
  });
});
