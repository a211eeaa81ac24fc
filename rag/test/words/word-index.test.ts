import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { waitFor } from '@notegate/kit/testing';
import Database from 'better-sqlite3';
import { NO_MODEL } from '../../src/config/models.js';
import { IndexSnapshot } from '../../src/snapshot/index-snapshot.js';
import { SnapshotSource } from '../../src/snapshot/snapshot-source.js';
import { IndexStore } from '../../src/store/index-store.js';
import { openDatabase } from '../../src/store/open-database.js';
import { Fts5Mirror } from '../../src/words/fts5-mirror.js';
import { MemoryWords } from '../../src/words/memory-words.js';
import { SqliteWords } from '../../src/words/sqlite-words.js';
import { describeWordIndex } from '../../src/words/word-index.js';
import { buildWordIndex, type WordIndexRequest } from '../../src/words/word-index-build.js';
import { differenceFromSqlite } from '../../src/words/word-index-check.js';
import { WordPostings, type WordPostingsParts } from '../../src/words/word-postings.js';
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
  const snapshot = await IndexSnapshot.open(file, NO_MODEL, Date.now, previous, { memoryWords });
  t.after(() => snapshot.close());
  return snapshot;
}

/** What a snapshot would ask a worker to build, built in this thread. */
function requestOf(snapshot: IndexSnapshot, file: string): WordIndexRequest {
  return { file, generation: snapshot.meta.vectorsGeneration ?? '', rows: snapshot.vectors.matrix };
}

describe('the word index of a snapshot', () => {
  it('ranks in SQLite while it is built, from memory once built, and is shared by the next snapshot of the same state', async (t) => {
    const file = indexFile(t);
    const first = await open(t, file);
    assert.equal(first.wordIndex.kind, 'building');
    assert.equal(first.lexical.scoring, 'sqlite');
    await first.wordIndexSettled();
    assert.equal(first.wordIndex.kind, 'ready');
    assert.equal(first.lexical.scoring, 'memory');

    const again = await open(t, file, first);
    assert.equal(again.wordIndex, first.wordIndex, 'the same generation keeps its index');
    first.close();
    assert.equal(again.lexical.scoring, 'memory', 'closing the older snapshot leaves the index to the newer');

    write(file, { 'new.md': 'a new note about keys' });
    const changed = await open(t, file, again);
    assert.equal(changed.wordIndex.kind, 'building', 'new chunks: a new index');
    await changed.wordIndexSettled();
    assert.equal(changed.lexical.scoring, 'memory');
    assert.equal(again.lexical.scoring, 'memory');
  });

  it('stops a build when the last snapshot of its generation closes', async (t) => {
    const snapshot = await IndexSnapshot.open(indexFile(t), NO_MODEL, Date.now);
    snapshot.close();
    await snapshot.wordIndexSettled();
    assert.deepEqual(snapshot.wordIndex, { kind: 'unavailable', reason: 'no snapshot of this generation is open' });
  });

  it('is not built when switched off, or for an index that records no generation', async (t) => {
    const file = indexFile(t);
    const off = await open(t, file, undefined, false);
    assert.deepEqual(off.wordIndex, { kind: 'unavailable', reason: 'switched off' });
    assert.equal(off.lexical.scoring, 'sqlite');
    const raw = new Database(file);
    raw.exec("DELETE FROM meta WHERE key = 'vectors_generation'");
    raw.close();
    const unknown = await open(t, file);
    assert.equal(unknown.wordIndex.kind, 'unavailable');
  });

  it("reports how the current snapshot's build ended, and nothing for a snapshot replaced meanwhile", async (t) => {
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
    await waitFor('the first report', () => reports.length === 1);
    assert.deepEqual(reports, ['ready']);

    write(file, { 'one.md': 'one more note' });
    await source.refresh();
    write(file, { 'two.md': 'two more notes' });
    await source.refresh();
    const current = source.current;
    assert.equal(current.kind, 'ready');
    await current.snapshot.wordIndexSettled();
    await waitFor('the report of the last build', () => reports.length >= 2);
    assert.equal(reports.at(-1), 'ready');
    assert.ok(!reports.includes('unavailable'), `a replaced build is not reported: ${reports.join(', ')}`);
  });

  it('says in one line where the word tier is ranked and why', () => {
    const words = undefined as unknown as MemoryWords;
    assert.equal(
      describeWordIndex({ kind: 'ready', words, buildMs: 139.4 }),
      'word index built in 139 ms: lexical ranking in memory',
    );
    assert.equal(
      describeWordIndex({ kind: 'unavailable', reason: 'switched off' }),
      'no word index (switched off): lexical ranking stays in SQLite',
    );
  });

  it('refuses to read an index that moved on to another generation', async (t) => {
    const file = indexFile(t);
    const snapshot = await open(t, file);
    write(file, { 'more.md': 'more text' });
    const mirror = new Fts5Mirror();
    t.after(() => mirror.close());
    assert.deepEqual(buildWordIndex(requestOf(snapshot, file), mirror), {
      kind: 'unavailable',
      reason: 'the index changed before its word index was read',
    });
  });

  it('is checked against SQLite before use: a difference in what bm25() reads is found', async (t) => {
    const file = indexFile(t);
    const snapshot = await open(t, file);
    const mirror = new Fts5Mirror();
    t.after(() => mirror.close());
    const reply = buildWordIndex(requestOf(snapshot, file), mirror);
    assert.equal(reply.kind, 'built');
    if (reply.kind !== 'built') return;
    const db = openDatabase(file, { reader: true });
    t.after(() => db.close());
    const sqlite = new SqliteWords(db);
    const check = (parts: WordPostingsParts) =>
      differenceFromSqlite(new MemoryWords(new WordPostings(parts), snapshot.vectors.matrix, mirror), sqlite);
    assert.equal(check(reply.parts), undefined);
    const { totals, lengths } = reply.parts;
    assert.match(String(check({ ...reply.parts, totals: { ...totals, rows: totals.rows + 1 } })), /^the ranking of /);
    const longer = Uint32Array.from(lengths, (length, row) => (row === 0 ? length + 1 : length));
    assert.match(String(check({ ...reply.parts, lengths: longer })), /^the ranking of /);
  });
});
