import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { NO_MODEL } from '../../src/config/models.js';
import { IndexSnapshot } from '../../src/snapshot/index-snapshot.js';
import { type ReplyTo, runSegmentJob, type SegmentJob } from '../../src/snapshot/segment-jobs.js';
import { DEFAULT_VECTOR_BUILD, type SegmentJobs } from '../../src/snapshot/segment-worker-client.js';
import { SnapshotSource } from '../../src/snapshot/snapshot-source.js';
import { IndexStore } from '../../src/store/index-store.js';
import { loadVectorMatrix } from '../../src/store/load-vectors.js';
import { openDatabase } from '../../src/store/open-database.js';
import { Fts5Mirror } from '../../src/words/fts5-mirror.js';
import { MemoryWords } from '../../src/words/memory-words.js';
import { SqliteWords } from '../../src/words/sqlite-words.js';
import { describeWordIndex } from '../../src/words/word-index.js';
import { buildWordIndex, prepareWordVocabulary } from '../../src/words/word-index-build.js';
import { differenceFromSqlite } from '../../src/words/word-index-check.js';
import { WordPostings } from '../../src/words/word-postings.js';
import { fileRecord, tempDir } from '../../test-support/fixtures.js';

const NOTES: Readonly<Record<string, string>> = {
  'keys.md': 'the signing keys rotate every ninety days',
  'lunch.md': 'the lunch menu of the week',
  'rotation.md': 'key rotation and the schedule of certificates',
  'cats.md': '我家的小猫很可爱',
};

function write(file: string, notes: Readonly<Record<string, string>>): void {
  const store = IndexStore.open(file, { model: NO_MODEL, nowMs: 1 });
  for (const [name, text] of Object.entries(notes)) {
    const chunk = { seq: 0, heading: '', lineStart: 1, lineEnd: 1, text, tokenCount: 1, vector: new Float32Array(0) };
    store.replaceFile(fileRecord(name, { aliases: [] }), [chunk], 1);
  }
  store.finishRun('', '{}', 2);
  store.close();
}

function indexFile(t: TestContext): string {
  const file = path.join(tempDir(t), 'index.sqlite');
  write(file, NOTES);
  return file;
}

async function open(t: TestContext, file: string, previous?: IndexSnapshot, memoryWords = true) {
  const snapshot = await IndexSnapshot.open(file, { model: NO_MODEL, previous, memoryWords });
  t.after(() => snapshot.close());
  return snapshot;
}

/** Segment jobs run in this thread; after the first whole load, `meanwhile` commits (before the snapshot's own read). */
function inThread(meanwhile: () => void): SegmentJobs {
  const mirror = new Fts5Mirror();
  let loads = 0;
  return {
    run: async <J extends SegmentJob>(job: J) => {
      const reply = runSegmentJob(job, () => mirror, DEFAULT_VECTOR_BUILD);
      if (job.kind === 'base' && loads++ === 0) meanwhile();
      return reply as ReplyTo<J>;
    },
  };
}

describe('the word index of a snapshot', () => {
  it('ranks from memory from the first request; the next snapshot of the same state shares it, a change adds a segment', async (t) => {
    const file = indexFile(t);
    const first = await open(t, file);
    assert.equal(first.lexical.scoring, 'memory');
    assert.deepEqual(first.load.kind === 'whole' && first.load.wordIndex.kind, 'ready');

    const again = await open(t, file, first);
    assert.equal(again.load.kind, 'same');
    assert.equal(again.segments, first.segments, 'the same state keeps its index');
    first.close();
    assert.equal(again.lexical.scoring, 'memory', 'closing the older snapshot leaves the index to the newer');

    write(file, { 'new.md': 'a new note about keys' });
    const changed = await open(t, file, again);
    assert.deepEqual(changed.load, { kind: 'changes', changes: 1 });
    assert.equal(changed.segments.states.length, 2);
    assert.equal(changed.lexical.scoring, 'memory');
    assert.equal(again.lexical.scoring, 'memory');
  });

  it('is not built when switched off: the word tier is ranked in SQLite', async (t) => {
    const off = await open(t, indexFile(t), undefined, false);
    assert.deepEqual(off.load, {
      kind: 'whole',
      reason: 'first load',
      wordIndex: { kind: 'unavailable', reason: 'switched off' },
    });
    assert.equal(off.lexical.scoring, 'sqlite');
    assert.equal(off.segments.hasWords, false);
  });

  it('catches a whole load up with what was committed while it ran: deleted in place, added as a segment', async (t) => {
    const file = indexFile(t);
    const worker = inThread(() => write(file, { 'keys.md': 'the keys are kept in a vault', 'new.md': 'keys again' }));
    const snapshot = await IndexSnapshot.open(file, { model: NO_MODEL, worker });
    t.after(() => snapshot.close());
    const [base, added] = snapshot.segments.states;
    assert.deepEqual([base?.segment.rowCount, base?.deletedCount, added?.segment.rowCount], [4, 1, 2]);
    const sqlite = await open(t, file, undefined, false);
    const scope = { vaults: undefined, namespaces: undefined };
    for (const query of ['keys', 'vault rotation', 'the']) {
      const terms = [{ text: query.split(' ')[0] ?? '', prefix: false, kind: 'word' } as const];
      assert.deepEqual(
        snapshot.lexical.wordRanking(terms).rank(terms, scope, 10),
        sqlite.lexical.wordRanking(terms).rank(terms, scope, 10),
        query,
      );
    }
  });

  it("reports how each whole load's word index ended, and nothing for the loads that follow changes", async (t) => {
    const file = indexFile(t);
    const reports: string[] = [];
    const source = new SnapshotSource({
      indexPath: file,
      model: NO_MODEL,
      reloadSpacing: () => 0,
      onWordIndex: (state) => reports.push(state.kind),
    });
    t.after(() => source.close());
    await source.start();
    assert.deepEqual(reports, ['ready']);
    write(file, { 'one.md': 'one more note' });
    await source.refresh();
    write(file, { 'two.md': 'two more notes' });
    await source.refresh();
    const current = source.current;
    assert.equal(current.kind === 'ready' && current.snapshot.load.kind, 'changes');
    assert.deepEqual(reports, ['ready']);
  });

  it('says in one line where the word tier is ranked and why', () => {
    assert.equal(
      describeWordIndex({ kind: 'ready', buildMs: 139.4 }),
      'word index built in 139 ms: lexical ranking in memory',
    );
    assert.equal(
      describeWordIndex({ kind: 'unavailable', reason: 'switched off' }),
      'no word index (switched off): lexical ranking stays in SQLite',
    );
  });

  it('is checked against SQLite before use: a difference in what bm25() reads is found', (t) => {
    const file = indexFile(t);
    const mirror = new Fts5Mirror();
    t.after(() => mirror.close());
    const db = openDatabase(file, { reader: true });
    t.after(() => db.close());
    prepareWordVocabulary(db);
    db.exec('BEGIN');
    const rows = loadVectorMatrix(db, 0);
    const built = buildWordIndex(db, rows, mirror);
    assert.equal(built.kind, 'built');
    if (built.kind !== 'built') return;
    const sqlite = new SqliteWords(db);
    const check = (postings: WordPostings, totals = built.totals) =>
      differenceFromSqlite(
        new MemoryWords([{ postings, rows, deleted: undefined, deletedPostings: undefined }], totals, mirror),
        sqlite,
      );
    assert.equal(check(built.postings), undefined);
    const { totals, postings } = built;
    assert.match(String(check(postings, { ...totals, rows: totals.rows + 1 })), /^the ranking of /);
    const lengths = Uint32Array.from(postings.lengths, (length, row) => (row === 0 ? length + 1 : length));
    assert.match(String(check(new WordPostings({ ...postings, lengths }))), /^the ranking of /);
  });
});
