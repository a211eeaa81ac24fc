import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { NO_MODEL } from '../../src/config/models.js';
import { RagError } from '../../src/errors/rag-error.js';
import { CHANGE_LOG_MIN_ENTRIES, readChangesSince, readLogPosition } from '../../src/store/change-log.js';
import { assertIndexMatches } from '../../src/store/index-meta.js';
import { IndexStore, type StoredChunk } from '../../src/store/index-store.js';
import { FTS5_HASH_BYTES } from '../../src/store/schema.js';
import { assertConsistent, assertFtsIntact } from '../../test-support/consistency.js';
import { E5_SMALL, MINILM, model, fileRecord as record, tempDir } from '../../test-support/fixtures.js';
import { asOlderFormat } from '../../test-support/older-format.js';

const minilm = model(MINILM);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function chunk(seq: number, text: string, dimension = 384): StoredChunk {
  const vector = new Float32Array(dimension);
  vector[seq % dimension] = 1;
  return { seq, heading: 'H', lineStart: seq + 1, lineEnd: seq + 1, text, tokenCount: 3, vector };
}

function open(file: string, options: Partial<Parameters<typeof IndexStore.open>[1]> = {}) {
  return IndexStore.open(file, { model: minilm, nowMs: 1000, ...options });
}

type FullTextTable = 'chunks_words' | 'chunks_trigram';

/** The distinct files whose chunks match in `table`, sorted. */
function ftsPaths(file: string, query: string, table: FullTextTable = 'chunks_trigram'): string[] {
  const db = new Database(file, { readonly: true });
  try {
    return db
      .prepare(
        `SELECT f.path FROM ${table} JOIN chunks c ON c.id = ${table}.rowid JOIN files f ON f.id = c.file_id WHERE ${table} MATCH ?`,
      )
      .pluck()
      .all(query)
      .map(String)
      .filter((p, i, all) => all.indexOf(p) === i)
      .sort();
  } finally {
    db.close();
  }
}

/** The rowids matching, read from a full-text index alone: a row left behind by a delete still shows here. */
function ftsRowids(file: string, query: string, table: FullTextTable): number[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(`SELECT rowid FROM ${table} WHERE ${table} MATCH ?`).pluck().all(query).map(Number);
  } finally {
    db.close();
  }
}

/** Creates an empty index at `file`, then changes it behind the store's back. */
function createThenAlter(file: string, alter: (db: Database.Database) => unknown): void {
  open(file).close();
  const db = new Database(file);
  try {
    alter(db);
  } finally {
    db.close();
  }
}

describe('IndexStore', () => {
  it('creates the schema once and records model, dimension, full-text layout and format', (t) => {
    const file = path.join(tempDir(t), 'sub', 'index.sqlite');
    const store = open(file);
    const { changeLogId, ...meta } = store.meta;
    assert.match(changeLogId, UUID);
    assert.deepEqual(meta, {
      schemaVersion: 4,
      modelId: MINILM,
      dimension: 384,
      lexicalLayout: 'words+trigram',
      vectorFormat: 'float32le',
      fingerprint: '',
      createdAtMs: 1000,
      lastIndexedAtMs: undefined,
    });
    store.close();
    const again = open(file, { nowMs: 2000 });
    assert.equal(again.meta.createdAtMs, 1000);
    again.close();
    const db = new Database(file, { readonly: true });
    assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
    db.close();
  });

  it('replaces all rows of a file in one go: chunks, full-text rows and vectors', (t) => {
    const file = path.join(tempDir(t), 'index.sqlite');
    const store = open(file);
    store.replaceFile(record('a.md'), [chunk(0, 'Schlüsselrotation im Team'), chunk(1, '東京オフィスの勤務時間')], 5);
    store.replaceFile(record('b.md'), [chunk(0, 'unrelated')], 5);
    assert.deepEqual(ftsPaths(file, '"rotation"'), ['a.md'], 'trigram matches inside words');
    assert.deepEqual(ftsPaths(file, '"schlusselrotation"', 'chunks_words'), ['a.md'], 'whole words, diacritics folded');
    assert.deepEqual(ftsPaths(file, '"勤務" "務時" "時間"', 'chunks_words'), ['a.md'], 'kanji as bigrams');
    assert.deepEqual(
      ftsPaths(file, '"alias"', 'chunks_words'),
      ['a.md', 'b.md'],
      'aliases are searchable with the title',
    );
    store.replaceFile(record('a.md', { contentSha256: 'sha2' }), [chunk(0, 'new text')], 6);
    assert.deepEqual(ftsPaths(file, '"rotation"'), []);
    for (const [table, query] of [
      ['chunks_trigram', '"rotation"'],
      ['chunks_words', '"schlusselrotation"'],
    ] as const) {
      assert.deepEqual(ftsRowids(file, query, table), [], `the ${table} rows of replaced chunks are gone`);
    }
    assert.deepEqual(assertConsistent(file, 384), { files: 2, chunks: 2, vectors: 2 });
    assertFtsIntact(file);
    store.removeFiles([...store.fileRows('v').values()].map((row) => row.id));
    assert.deepEqual(assertConsistent(file, 384), { files: 0, chunks: 0, vectors: 0 });
    for (const table of ['chunks_trigram', 'chunks_words'] as const) {
      assert.deepEqual(ftsRowids(file, '"alias"', table), [], `the ${table} rows of removed files are gone`);
    }
    assertFtsIntact(file);
    store.close();
  });

  it('logs every chunk added and removed in the transaction that changes it, and nothing else', (t) => {
    const file = path.join(tempDir(t), 'index.sqlite');
    const store = open(file);
    const log = () => {
      const db = new Database(file, { readonly: true });
      try {
        return readChangesSince(db, 0)?.map((c) => `${c.added ? '+' : '-'}${c.chunkId}`) ?? [];
      } finally {
        db.close();
      }
    };
    store.replaceFile(record('a.md'), [chunk(0, 'one'), chunk(1, 'two')], 5);
    assert.deepEqual(log(), ['+1', '+2']);
    store.touchFiles([{ id: store.fileRows('v').get('a.md')?.id ?? 0, mtimeMs: 9, sizeBytes: 9 }]);
    store.finishRun('fp', '{}', 10);
    store.writeMeta({ 'model_hash:x': 'y' });
    assert.deepEqual(log(), ['+1', '+2'], 'touchFiles, finishRun and writeMeta change no chunk');
    assert.throws(() => store.replaceFile(record('a.md'), [chunk(0, 'x'), chunk(0, 'y')], 6), /UNIQUE/);
    assert.deepEqual(log(), ['+1', '+2'], 'a rolled-back replacement leaves no entry');
    store.replaceFile(record('a.md'), [chunk(0, 'three')], 7);
    store.removeFiles([store.fileRows('v').get('a.md')?.id ?? 0]);
    // Removals before additions, in commit order; SQLite gives the new chunk the freed id 1 again.
    assert.deepEqual(log(), ['+1', '+2', '-1', '-2', '+1', '-1']);
    const before = store.meta.changeLogId;
    store.close();
    const rebuilt = open(file, { rebuild: true });
    assert.notEqual(rebuilt.meta.changeLogId, before, 'a rebuild starts another log');
    assert.deepEqual(log(), []);
    rebuilt.close();
  });

  it('prunes the oldest log entries at the end of a run, keeping as many as the index has chunks and at least a floor', (t) => {
    const file = path.join(tempDir(t), 'index.sqlite');
    const store = open(file, { model: NO_MODEL });
    const raw = new Database(file);
    t.after(() => raw.close());
    const fill = raw.prepare('INSERT INTO chunk_changes (chunk_id, added) VALUES (?, 1)');
    raw.transaction(() => {
      for (let i = 0; i < CHANGE_LOG_MIN_ENTRIES + 10; i += 1) fill.run(i);
    })();
    store.replaceFile(record('a.md'), [chunk(0, 'one', 0)], 5);
    const position = () => {
      raw.exec('BEGIN');
      try {
        return { last: readLogPosition(raw).seq, entries: readChangesSince(raw, 0), from: readChangesSince(raw, 11) };
      } finally {
        raw.exec('COMMIT');
      }
    };
    assert.equal(position().entries?.length, CHANGE_LOG_MIN_ENTRIES + 11, 'nothing pruned before the run ends');
    store.finishRun('fp', '{}', 10);
    const after = position();
    assert.equal(after.last, CHANGE_LOG_MIN_ENTRIES + 11, 'the sequence goes on');
    assert.equal(after.entries, undefined, 'a reader at 0 is too far behind');
    assert.equal(after.from?.length, CHANGE_LOG_MIN_ENTRIES, 'a reader at 11 can follow');
    assert.deepEqual(after.from?.at(-1), { seq: CHANGE_LOG_MIN_ENTRIES + 11, chunkId: 1, added: true });
    store.close();
  });

  for (const [from, cost] of [
    [2, 'the notes with tags or without a chunk are indexed again'],
    [3, 'nothing is indexed again'],
  ] as const) {
    it(`upgrades an index of format ${from} in place: the change log, a log id instead of the vectors generation, ${cost}`, (t) => {
      const file = path.join(tempDir(t), 'index.sqlite');
      const store = open(file);
      store.replaceFile(record('a.md'), [chunk(0, 'kept')], 5);
      store.replaceFile(record('tagged.md', { tags: ['ops'] }), [chunk(0, 'tagged')], 5);
      store.close();
      const db = new Database(file);
      asOlderFormat(db, from);
      db.close();
      const reader = new Database(file, { readonly: true });
      assert.throws(
        () => assertIndexMatches(reader, file, minilm, 'x'),
        (err: unknown) =>
          err instanceof RagError &&
          err.message.endsWith(
            `format version ${from}, this version reads 4; run 'notegate-rag index' once to upgrade it in place (${cost})`,
          ),
      );
      reader.close();
      const upgraded = open(file);
      assert.equal(upgraded.meta.schemaVersion, 4);
      assert.match(upgraded.meta.changeLogId, UUID);
      assert.equal(upgraded.metaValue('vectors_generation'), undefined);
      // Format 2 to 3: the next run reads the tagged note again (its fingerprint no longer matches).
      const fingerprints = [...upgraded.fileRows('v').values()].map((row) => [row.path, row.fingerprint]);
      assert.deepEqual(fingerprints.sort(), [
        ['a.md', 'fp'],
        ['tagged.md', from === 2 ? '' : 'fp'],
      ]);
      upgraded.replaceFile(record('b.md'), [chunk(0, 'new')], 6);
      upgraded.close();
      const log = new Database(file, { readonly: true });
      assert.deepEqual(
        log.prepare('SELECT added FROM chunk_changes').pluck().all(),
        [1],
        'the log starts at the upgrade',
      );
      log.close();
      assert.deepEqual(assertConsistent(file, 384), { files: 3, chunks: 3, vectors: 3 });
      assertFtsIntact(file);
    });
  }

  it('leaves the previous rows intact when a replacement fails half-way', (t) => {
    const file = path.join(tempDir(t), 'index.sqlite');
    const store = open(file);
    store.replaceFile(record('a.md'), [chunk(0, 'original')], 5);
    // Two chunks with the same seq violate UNIQUE (file_id, seq) on the second insert, after the deletes ran.
    assert.throws(
      () => store.replaceFile(record('a.md', { contentSha256: 'new' }), [chunk(0, 'x'), chunk(0, 'y')], 6),
      /UNIQUE/,
    );
    assert.equal(store.fileRows('v').get('a.md')?.contentSha256, 'sha');
    assert.deepEqual(ftsPaths(file, '"original"', 'chunks_words'), ['a.md']);
    assert.deepEqual(assertConsistent(file, 384), { files: 1, chunks: 1, vectors: 1 });
    assertFtsIntact(file);
    store.close();
  });

  it('replaces a file in steps inside one transaction: readers see the old rows until the commit, dropped steps roll back', (t) => {
    const file = path.join(tempDir(t), 'index.sqlite');
    const store = open(file);
    store.replaceFile(record('a.md'), [chunk(0, 'original')], 5);
    const readerSees = () =>
      ftsPaths(file, '"original"', 'chunks_words').length + ftsPaths(file, '"fresh"', 'chunks_words').length * 10;
    const replacement = [0, 1, 2, 3].map((seq) => chunk(seq, `fresh ${seq}`));
    const steps = store.replaceFileSteps(record('a.md', { contentSha256: 'new' }), replacement, 6);
    let taken = 0;
    for (let step = steps.next(); !step.done; step = steps.next()) {
      taken += 1;
      assert.equal(readerSees(), 1, 'another connection sees the old chunk between the steps');
    }
    assert.ok(taken >= replacement.length, `${taken} steps`);
    assert.equal(readerSees(), 10);
    const dropped = store.replaceFileSteps(record('a.md', { contentSha256: 'newer' }), [chunk(0, 'gone')], 7);
    dropped.next();
    dropped.return();
    assert.equal(store.fileRows('v').get('a.md')?.contentSha256, 'new');
    assert.deepEqual(ftsPaths(file, '"gone"', 'chunks_words'), []);
    store.removeFiles([store.fileRows('v').get('a.md')?.id ?? 0]);
    assert.deepEqual(assertConsistent(file, 384), { files: 0, chunks: 0, vectors: 0 });
    assertFtsIntact(file);
    store.close();
  });

  it('puts FTS5_HASH_BYTES in force in every full-text table, of a new index and of one made before', (t) => {
    const hashSizes = (file: string, tables: readonly string[]) => {
      const db = new Database(file, { readonly: true });
      try {
        return tables.map((table) => db.prepare(`SELECT v FROM ${table}_config WHERE k = 'hashsize'`).pluck().get());
      } finally {
        db.close();
      }
    };
    const full = path.join(tempDir(t), 'full.sqlite');
    open(full).close();
    assert.deepEqual(hashSizes(full, ['chunks_words', 'chunks_trigram']), [FTS5_HASH_BYTES, FTS5_HASH_BYTES]);
    const fallback = path.join(tempDir(t), 'fallback.sqlite');
    open(fallback, { lexicalLayout: 'words' }).close();
    assert.deepEqual(hashSizes(fallback, ['chunks_words']), [FTS5_HASH_BYTES]);
    // An index made before: FTS5's own default (no hashsize row), or another value.
    const older = path.join(tempDir(t), 'older.sqlite');
    createThenAlter(older, (db) => {
      // FTS5's shadow tables are written only with SQLite's defensive mode off.
      db.unsafeMode(true);
      db.exec("DELETE FROM chunks_words_config WHERE k = 'hashsize'");
      db.exec("INSERT INTO chunks_trigram (chunks_trigram, rank) VALUES ('hashsize', 1048576)");
    });
    assert.deepEqual(hashSizes(older, ['chunks_words', 'chunks_trigram']), [undefined, 1048576]);
    const store = open(older);
    store.replaceFile(record('a.md'), [chunk(0, 'still found')], 5);
    store.close();
    assert.deepEqual(hashSizes(older, ['chunks_words', 'chunks_trigram']), [FTS5_HASH_BYTES, FTS5_HASH_BYTES]);
    assert.deepEqual(ftsPaths(older, '"found"', 'chunks_words'), ['a.md']);
    assertFtsIntact(older);
  });

  it('with WAL checkpoints of its own, leaves every commit in the log and asks for a checkpoint after it', (t) => {
    const dir = tempDir(t);
    // Over SQLite's threshold (1,000 pages of 4 KiB): its own checkpoint would run inside this commit.
    const large = Array.from({ length: 40 }, (_, seq) => chunk(seq, `${'marble '.repeat(20_000)}${seq}`));
    const databaseBytes = (file: string) => statSync(file).size;
    const automatic = path.join(dir, 'automatic.sqlite');
    const plain = open(automatic);
    plain.replaceFile(record('a.md'), large, 5);
    assert.ok(databaseBytes(automatic) > 4_000_000, 'SQLite checkpointed inside the commit');
    plain.close();
    const deferred = path.join(dir, 'deferred.sqlite');
    let requests = 0;
    const store = open(deferred, { walCheckpoints: { request: () => (requests += 1) } });
    const before = databaseBytes(deferred);
    store.replaceFile(record('a.md'), large, 5);
    assert.equal(requests, 1);
    assert.equal(databaseBytes(deferred), before, 'the pages are still in the log only');
    assert.deepEqual(ftsPaths(deferred, '"marble"', 'chunks_words'), ['a.md'], 'and readers find them there');
    store.removeFiles([store.fileRows('v').get('a.md')?.id ?? 0]);
    store.touchFiles([]);
    store.finishRun('f', '{}', 6);
    assert.equal(requests, 3, 'after the removal and after the end of the run too');
    store.close();
  });

  it('refuses a vector of another dimension before writing anything', (t) => {
    const store = open(path.join(tempDir(t), 'index.sqlite'));
    assert.throws(
      () => store.replaceFile(record('a.md'), [chunk(0, 'x', 768)], 5),
      (err: unknown) => err instanceof RagError && err.code === 'ERR_EMBEDDING',
    );
    assert.equal(store.fileRows('v').size, 0);
    store.close();
  });

  it('uses the word table alone when told to (the fallback layout) and records that layout', (t) => {
    const file = path.join(tempDir(t), 'index.sqlite');
    const store = open(file, { lexicalLayout: 'words' });
    assert.equal(store.meta.lexicalLayout, 'words');
    store.replaceFile(record('a.md'), [chunk(0, 'Übersicht der Feiertage')], 5);
    store.replaceFile(record('b.md'), [chunk(0, 'ignored')], 5);
    store.replaceFile(record('b.md', { contentSha256: 'sha2' }), [chunk(0, 'replaced')], 6);
    assert.deepEqual(ftsPaths(file, '"ubersicht"', 'chunks_words'), ['a.md'], 'diacritics folded');
    assert.deepEqual(ftsPaths(file, '"feier"', 'chunks_words'), [], 'no substring matches in this layout');
    assert.deepEqual(ftsRowids(file, '"ignored"', 'chunks_words'), [], 'replaced rows are gone');
    assert.throws(() => ftsPaths(file, '"feier"'), /no such table: chunks_trigram/);
    assertFtsIntact(file);
    store.close();
  });

  it('stores no vectors for an index without a model (embed_model none)', (t) => {
    const file = path.join(tempDir(t), 'index.sqlite');
    const store = open(file, { model: NO_MODEL });
    assert.equal(store.meta.dimension, 0);
    store.replaceFile(record('a.md'), [chunk(0, 'keys', 0), chunk(1, 'locks', 0)], 5);
    store.close();
    assert.deepEqual(assertConsistent(file, 0), { files: 1, chunks: 2, vectors: 0 });
    assertFtsIntact(file);
  });

  it('refuses an index built with another model, naming --rebuild', (t) => {
    const file = path.join(tempDir(t), 'index.sqlite');
    open(file).close();
    assert.throws(
      () => open(file, { model: model(E5_SMALL) }),
      (err: unknown) =>
        err instanceof RagError &&
        err.code === 'ERR_INDEX_MODEL_MISMATCH' &&
        /built with sentence-transformers\/all-MiniLM-L6-v2 \(384 dimensions\) but the config names intfloat\/multilingual-e5-small \(384 dimensions\); run 'notegate-rag index --rebuild'/.test(
          err.message,
        ),
    );
    assert.throws(() => open(file, { model: model('intfloat/multilingual-e5-base') }), /--rebuild/);
  });

  it('rebuilds from scratch for a new model in one transaction', (t) => {
    const file = path.join(tempDir(t), 'index.sqlite');
    const store = open(file);
    store.replaceFile(record('a.md'), [chunk(0, 'old')], 5);
    store.close();
    const rebuilt = open(file, { model: model('intfloat/multilingual-e5-base'), rebuild: true, nowMs: 3000 });
    assert.equal(rebuilt.meta.modelId, 'intfloat/multilingual-e5-base');
    assert.equal(rebuilt.meta.dimension, 768);
    assert.equal(rebuilt.fileRows('v').size, 0);
    rebuilt.replaceFile(record('a.md'), [chunk(0, 'new', 768)], 5);
    rebuilt.close();
    assert.deepEqual(assertConsistent(file, 768), { files: 1, chunks: 1, vectors: 1 });
  });

  it('never touches a SQLite file that is not an index, not even to rebuild', (t) => {
    const file = path.join(tempDir(t), 'other.sqlite');
    const db = new Database(file);
    db.exec('CREATE TABLE precious (x)');
    db.close();
    for (const rebuild of [false, true]) {
      assert.throws(
        () => open(file, { rebuild }),
        (err: unknown) => err instanceof RagError && err.code === 'ERR_INDEX_SCHEMA',
      );
    }
  });

  it('refuses an index of another format version, naming --rebuild', (t) => {
    const file = path.join(tempDir(t), 'index.sqlite');
    createThenAlter(file, (db) => db.pragma('user_version = 99'));
    assert.throws(() => open(file), /format version 99, this version reads 4; run 'notegate-rag index --rebuild'/);
    open(file, { rebuild: true }).close();
  });

  it('refuses an index of format 1 (one trigram full-text table), and rebuilds it into the current format', (t) => {
    const file = path.join(tempDir(t), 'index.sqlite');
    const db = new Database(file);
    db.exec(`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE files (id INTEGER PRIMARY KEY);
      CREATE TABLE chunks (id INTEGER PRIMARY KEY, title TEXT, heading TEXT, body TEXT);
      CREATE TABLE chunk_vectors (chunk_id INTEGER PRIMARY KEY, embedding BLOB);
      CREATE VIRTUAL TABLE chunks_fts USING fts5 (title, heading, body, content = 'chunks', content_rowid = 'id', tokenize = 'trigram');
      CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN
        INSERT INTO chunks_fts (rowid, title, heading, body) VALUES (new.id, new.title, new.heading, new.body);
      END;
      PRAGMA user_version = 1;`);
    db.close();
    assert.throws(
      () => open(file),
      (err: unknown) =>
        err instanceof RagError &&
        err.code === 'ERR_INDEX_SCHEMA' &&
        /format version 1, this version reads 4; run 'notegate-rag index --rebuild'/.test(err.message),
    );
    const rebuilt = open(file, { rebuild: true });
    assert.equal(rebuilt.meta.schemaVersion, 4);
    rebuilt.replaceFile(record('a.md'), [chunk(0, 'fresh')], 5);
    rebuilt.close();
    assertFtsIntact(file);
  });
});
