import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { seededRandom } from '@notegate/kit/testing';
import { queryTerms } from '../../src/lexical/query-terms.js';
import { searchSnapshot } from '../../src/search/hybrid-search.js';
import { lexicalLeg } from '../../src/search/lexical-leg.js';
import { IndexSnapshot } from '../../src/snapshot/index-snapshot.js';
import { DEFAULT_VECTOR_BUILD, SegmentWorker } from '../../src/snapshot/segment-worker-client.js';
import { readIndexContents } from '../../src/store/index-contents.js';
import { IndexStore, type StoredChunk } from '../../src/store/index-store.js';
import { ScanThread } from '../../src/vectors/scan-thread-client.js';
import type { ChunkScope } from '../../src/words/word-ranking.js';
import { fileRecord, MINILM, model, tempDir } from '../../test-support/fixtures.js';
import { follow, install, mergeOf, type PendingMerge } from '../../test-support/segments.js';

const MODEL = model(MINILM);
const WORDS =
  'key keys rotate rotation signing vault lunch menu week cell cells protein review budget Straße über'.split(' ');
const VAULTS = ['big', 'big', 'mid', 'small'];
const SCOPES: readonly ChunkScope[] = [
  { vaults: undefined, namespaces: undefined },
  { vaults: ['small'], namespaces: undefined },
  { vaults: ['big', 'mid'], namespaces: ['ns1'] },
];

function unit(random: () => number): Float32Array {
  const v = Float32Array.from({ length: MODEL.dimension }, () => random() - 0.5);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

function sentence(random: () => number, words: number): string {
  return Array.from({ length: words }, () => WORDS[Math.floor(random() * WORDS.length)] ?? 'key').join(' ');
}

/**
 * An index changed at random, one transaction per step: files added,
 * replaced (new chunks, often the same words: ties) and removed, and the
 * newest file removed and written again (SQLite then gives chunk ids out
 * again).
 */
class RandomIndex {
  readonly store: IndexStore;
  private readonly live = new Set<number>();
  private next = 0;

  constructor(
    readonly file: string,
    private readonly random: () => number,
  ) {
    this.store = IndexStore.open(file, { model: MODEL, nowMs: 1 });
  }

  step(): void {
    const r = this.random();
    const files = [...this.live];
    const pick = () => files[Math.floor(this.random() * files.length)] ?? 0;
    if (files.length < 5 || r < 0.4) this.write(this.next++);
    else if (r < 0.75) this.write(pick());
    else if (r < 0.9) this.remove(pick());
    else {
      const newest = Math.max(...files);
      this.remove(newest);
      this.write(newest);
    }
  }

  close(): void {
    this.store.finishRun('', '{}', 2);
    this.store.close();
  }

  private write(f: number): void {
    const chunks: StoredChunk[] = Array.from({ length: 1 + Math.floor(this.random() * 4) }, (_, seq) => ({
      seq,
      heading: this.random() < 0.5 ? sentence(this.random, 2) : '',
      lineStart: seq + 1,
      lineEnd: seq + 1,
      text: sentence(this.random, 3 + Math.floor(this.random() * 20)),
      tokenCount: 1,
      vector: unit(this.random),
    }));
    const vault = VAULTS[f % VAULTS.length] ?? 'big';
    const title = sentence(this.random, 1 + (f % 3));
    this.store.replaceFile(fileRecord(`n${f}.md`, { vault, namespace: `ns${f % 3}`, title, aliases: [] }), chunks, 1);
    this.live.add(f);
  }

  private remove(f: number): void {
    const row = this.store.fileRows(VAULTS[f % VAULTS.length] ?? 'big').get(`n${f}.md`);
    if (row) this.store.removeFiles([row.id]);
    this.live.delete(f);
  }
}

/** Everything a search computes from a snapshot, followed and loaded whole and ranked in SQLite, must agree. */
async function assertSameAsWhole(file: string, followed: IndexSnapshot, worker: SegmentWorker, random: () => number) {
  const whole = await IndexSnapshot.open(file, { model: MODEL, worker });
  const sqlite = await IndexSnapshot.open(file, { model: MODEL, worker, memoryWords: false });
  try {
    assert.equal(whole.segments.states.length, 1);
    assert.equal(followed.segments.liveRows, whole.segments.liveRows);
    // The per-vault chunks come from the segments' live rows: they must be the index's own counts.
    assert.deepEqual(followed.vaults, readIndexContents(file).vaults);
    assert.deepEqual(whole.vaults, readIndexContents(file).vaults);
    assert.equal(followed.chunks, sumOf(followed.vaults.map((v) => v.chunks)));
    // A filter naming every vault of the segments' rows is no filter; one vault with chunks fewer is.
    const named = [...followed.segments.vaultNames(), 'elsewhere'];
    assert.equal(followed.filter(named, undefined).scope.vaults, undefined);
    const withChunks = followed.vaults.filter((v) => v.chunks > 0).map((v) => v.vault);
    assert.deepEqual(followed.filter(withChunks.slice(1), undefined).scope.vaults, withChunks.slice(1));
    for (let q = 0; q < 6; q += 1) {
      const query = sentence(random, 1 + Math.floor(random() * 4));
      const { terms } = queryTerms(query, { ngrams: true });
      const fromMemory = followed.lexical.wordRanking(terms);
      const inSqlite = sqlite.lexical.wordRanking(terms);
      for (const term of terms) {
        assert.equal(fromMemory.documentFrequency(term), inSqlite.documentFrequency(term), `df of ${term.text}`);
      }
      const matching = terms.filter((term) => inSqlite.documentFrequency(term) > 0);
      for (const scope of SCOPES) {
        if (matching.length > 0) {
          assert.deepEqual(fromMemory.rank(matching, scope, 50), inSqlite.rank(matching, scope, 50), query);
        }
        assert.deepEqual(lexicalLeg(query, 20, followed.lexical, scope), lexicalLeg(query, 20, whole.lexical, scope));
      }
      const vector = unit(random);
      for (const [vaults, namespaces] of [
        [undefined, undefined],
        [['small', 'mid'], ['ns0']],
      ] as const) {
        const options = {
          query,
          top: 10,
          vaults,
          namespaces,
          mode: 'hybrid',
          mmr: q % 2 === 0,
          mmrLambda: 0.5,
        } as const;
        assert.deepEqual(searchSnapshot(followed, vector, options), searchSnapshot(whole, vector, options), query);
        // Rows are each segment's own; chunks and scores are the index's.
        const nearest = (on: IndexSnapshot) =>
          on.nearest(vector, 30, on.filter(vaults, namespaces)).map((hit) => [hit.chunkId, hit.score]);
        assert.deepEqual(nearest(followed), nearest(whole));
      }
    }
  } finally {
    whole.close();
    sqlite.close();
  }
}

function sumOf(values: readonly number[]): number {
  return values.reduce((sum, value) => sum + value, 0);
}

/** Rows deleted in the merge's sources since it began: the merged segment must delete them too. */
function deletedSince(snapshot: IndexSnapshot, merge: PendingMerge): number {
  return merge.sources.reduce((sum, source) => {
    const now = snapshot.segments.states.find((state) => state.segment === source.segment);
    return sum + (now?.deletedCount ?? 0) - source.deletedCount;
  }, 0);
}

/**
 * Seed 4 gives segments of 10 rows and more sign codes (docs/retrieval.md#dense-leg): with fewer
 * rows than the candidates of a top k, the approximate scan is the exact one, so every search
 * must still agree, through merges that make the codes anew.
 */
const RUNS = [
  { seed: 1, vectors: DEFAULT_VECTOR_BUILD },
  { seed: 2, vectors: DEFAULT_VECTOR_BUILD },
  { seed: 3, vectors: DEFAULT_VECTOR_BUILD },
  { seed: 4, vectors: { approximateFromRows: 10 } },
];

describe('segments against a whole load', () => {
  for (const { seed, vectors } of RUNS) {
    it(`rank every search the same, to the last bit, through random additions, replacements, removals and merges (seed ${seed})`, async (t) => {
      const random = seededRandom(seed);
      const file = path.join(tempDir(t), 'index.sqlite');
      const index = new RandomIndex(file, random);
      const worker = new SegmentWorker({ vectors });
      t.after(() => worker.close());
      // The followed snapshots post their large segments' scans to a thread (taken back when it is slower).
      const scanThread = new ScanThread();
      t.after(() => scanThread.close());
      assert.equal(await scanThread.ready(), true);
      for (let i = 0; i < 20; i += 1) index.step();
      let snapshot = await IndexSnapshot.open(file, { model: MODEL, worker, scanThread });
      t.after(() => snapshot.close());
      let pending: PendingMerge | undefined;
      const seen = { deleted: 0, merges: 0, mergedWithDeletionsSince: 0, approximate: 0 };
      for (let round = 0; round < 25; round += 1) {
        const steps = 1 + Math.floor(random() * 3);
        for (let i = 0; i < steps; i += 1) index.step();
        snapshot = await follow(file, snapshot, { model: MODEL, worker, scanThread });
        assert.equal(snapshot.load.kind, 'changes', snapshot.load.kind === 'whole' ? snapshot.load.reason : '');
        seen.deleted = Math.max(seen.deleted, snapshot.segments.deletedRows);
        if (pending) {
          if (deletedSince(snapshot, pending) > 0) seen.mergedWithDeletionsSince += 1;
          install(snapshot, pending);
          seen.merges += 1;
        }
        await assertSameAsWhole(file, snapshot, worker, random);
        if (!snapshot.vectorsExact) seen.approximate += 1;
        const count = snapshot.segments.states.length;
        const chosen = [...new Set([Math.floor(random() * count), Math.floor(random() * count), count - 1])];
        pending =
          count >= 2 && random() < 0.6
            ? mergeOf(
                snapshot,
                chosen.sort((a, b) => a - b),
                vectors,
              )
            : undefined;
      }
      index.close();
      assert.ok(seen.deleted > 0 && seen.merges >= 5 && seen.mergedWithDeletionsSince > 0, JSON.stringify(seen));
      assert.equal(seen.approximate > 0, vectors !== DEFAULT_VECTOR_BUILD, JSON.stringify(seen));
      const { scannedThere, takenBack } = scanThread.counts;
      assert.equal(scannedThere + takenBack > 0, vectors !== DEFAULT_VECTOR_BUILD, JSON.stringify(scanThread.counts));
    });
  }
});
