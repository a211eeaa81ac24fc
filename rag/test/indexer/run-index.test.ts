import assert from 'node:assert/strict';
import { mkdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { loadRagConfig } from '../../src/config/load-config.js';
import { RagError } from '../../src/errors/rag-error.js';
import { runIndex } from '../../src/indexer/run-index.js';
import { IndexSnapshot } from '../../src/snapshot/index-snapshot.js';
import { assertConsistent, assertFtsIntact } from '../../test-support/consistency.js';
import { E5_SMALL, MINILM, sharedEmbedder, workspace, writeConfig } from '../../test-support/fixtures.js';
import { asOlderFormat } from '../../test-support/older-format.js';
import { indexOptions, poisoned } from '../../test-support/run.js';

const NOTES = {
  'Welcome.md': '# Welcome\n\nStart here.\n',
  'eng/keys.md':
    '---\ntitle: Rotating keys\ntags: [security]\n---\n\n## Setup\n\n### Keys\n\nEach key has a kid.\n\n```sh\nopenssl ecparam\n```\n',
  'people/urlaub.md': '# Urlaub\n\n## Urlaubsantrag\n\nZwei Wochen vorher eintragen.\n',
};

function rows(indexPath: string, sql: string): unknown[] {
  const db = new Database(indexPath, { readonly: true });
  try {
    return db.prepare(sql).all();
  } finally {
    db.close();
  }
}

describe('runIndex', () => {
  it('indexes every note, then finds nothing to do on a second run without loading the model', async (t) => {
    const ws = workspace(t, { handbook: NOTES });
    const first = await runIndex(indexOptions(ws, { clock: () => 5000 }));
    assert.deepEqual([first.new, first.updated, first.unchanged, first.removed], [3, 0, 0, 0]);
    assert.deepEqual([first.skipped, first.failed], [[], []]);
    assert.equal(first.lexicalLayout, 'words+trigram');
    const counts = assertConsistent(ws.config.indexPath, 384);
    assert.equal(counts.files, 3);
    assert.equal(first.chunksEmbedded, counts.chunks);
    assertFtsIntact(ws.config.indexPath);
    assert.deepEqual(rows(ws.config.indexPath, "SELECT value FROM meta WHERE key = 'last_indexed_at_ms'"), [
      { value: '5000' },
    ]);
    assert.deepEqual(
      rows(
        ws.config.indexPath,
        "SELECT f.path, f.namespace, f.title, f.tags, c.heading, c.line_start, c.line_end FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.path = 'eng/keys.md'",
      ),
      [
        {
          path: 'eng/keys.md',
          namespace: 'eng',
          title: 'Rotating keys',
          tags: '["security"]',
          heading: 'Setup > Keys',
          line_start: 10,
          line_end: 14,
        },
      ],
    );

    const second = indexOptions(ws);
    const summary = await runIndex(second);
    assert.deepEqual([summary.new, summary.updated, summary.unchanged, summary.chunksEmbedded], [0, 0, 3, 0]);
    assert.deepEqual(second.loads, [], 'the model is not even loaded');
  });

  it('treats a touched but unchanged file as unchanged, only moving its stored mtime', async (t) => {
    const ws = workspace(t, { handbook: NOTES });
    await runIndex(indexOptions(ws));
    const before = rows(ws.config.indexPath, 'SELECT id FROM chunks ORDER BY id');
    const file = path.join(ws.root, 'vaults', 'handbook', 'Welcome.md');
    utimesSync(file, new Date(), new Date(Date.now() + 60_000));
    const options = indexOptions(ws);
    const summary = await runIndex(options);
    assert.deepEqual([summary.unchanged, summary.updated, summary.chunksEmbedded], [3, 0, 0]);
    assert.deepEqual(rows(ws.config.indexPath, 'SELECT id FROM chunks ORDER BY id'), before, 'no chunk rewritten');
    assert.deepEqual(options.loads, []);
    const thirdOptions = indexOptions(ws);
    const third = await runIndex(thirdOptions);
    assert.equal(third.unchanged, 3);
    assert.ok(
      thirdOptions.events.some((e) => e.kind === 'planned' && e.filesToCheck === 0),
      'the new mtime was stored: the fast path holds again, nothing is even read',
    );
  });

  it('re-embeds a changed file, adds a new one and prunes a deleted one', async (t) => {
    const ws = workspace(t, { handbook: NOTES });
    await runIndex(indexOptions(ws));
    const vault = path.join(ws.root, 'vaults', 'handbook');
    writeFileSync(path.join(vault, 'Welcome.md'), '# Welcome\n\nStart somewhere else.\n');
    rmSync(path.join(vault, 'people', 'urlaub.md'));
    writeFileSync(path.join(vault, 'New.md'), 'A new note.\n');
    const summary = await runIndex(indexOptions(ws));
    assert.deepEqual([summary.new, summary.updated, summary.unchanged, summary.removed], [1, 1, 1, 1]);
    assert.deepEqual(
      rows(ws.config.indexPath, 'SELECT path FROM files ORDER BY path').map((r) => Object.values(r as object)[0]),
      ['New.md', 'Welcome.md', 'eng/keys.md'],
    );
    assertConsistent(ws.config.indexPath, 384);
    assertFtsIntact(ws.config.indexPath);
  });

  it('skips files that are not UTF-8 or unreadable, with a reason, and keeps going', async (t) => {
    const ws = workspace(t, { handbook: { ...NOTES, 'latin1.md': Buffer.from([0x4e, 0xe4, 0x68, 0x65]) } });
    symlinkSync(
      path.join(ws.root, 'vaults', 'handbook', 'missing.md'),
      path.join(ws.root, 'vaults', 'handbook', 'broken.md'),
    );
    const summary = await runIndex(indexOptions(ws));
    assert.equal(summary.new, 3);
    assert.deepEqual(
      summary.skipped.map((s) => [s.path, s.reason]),
      [
        ['broken.md', 'unreadable'],
        ['latin1.md', 'not_utf8'],
      ],
    );
  });

  it('removes a note from the index once it stops being valid UTF-8', async (t) => {
    const ws = workspace(t, { handbook: NOTES });
    await runIndex(indexOptions(ws));
    writeFileSync(path.join(ws.root, 'vaults', 'handbook', 'Welcome.md'), Buffer.from([0xff, 0xfe, 0x00]));
    const summary = await runIndex(indexOptions(ws));
    assert.deepEqual([summary.removed, summary.skipped[0]?.reason], [1, 'not_utf8']);
    assert.equal(assertConsistent(ws.config.indexPath, 384).files, 2);
  });

  it('keeps the previous state of a file whose embedding fails, commits its batch-mates, and reports it', async (t) => {
    const ws = workspace(t, { handbook: NOTES });
    await runIndex(indexOptions(ws));
    const vault = path.join(ws.root, 'vaults', 'handbook');
    writeFileSync(path.join(vault, 'Welcome.md'), '# Welcome\n\nPOISON pill.\n');
    writeFileSync(path.join(vault, 'eng', 'keys.md'), 'Keys, rewritten.\n');
    const options = indexOptions(ws, { loadEmbedder: async () => poisoned(await sharedEmbedder(MINILM), 'POISON') });
    const summary = await runIndex(options);
    assert.deepEqual(summary.failed, [
      { vault: 'handbook', path: 'Welcome.md', error: 'embedding failed: model crashed on POISON' },
    ]);
    assert.equal(summary.updated, 1);
    assert.deepEqual(
      rows(
        ws.config.indexPath,
        "SELECT c.body FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.path = 'Welcome.md'",
      ),
      [{ body: 'Start here.' }],
    );
    assertConsistent(ws.config.indexPath, 384);
    const retry = await runIndex(indexOptions(ws));
    assert.deepEqual([retry.updated, retry.failed.length], [1, 0], 'the next run tries the failed file again');
  });

  it('re-embeds exactly the files whose fingerprint differs', async (t) => {
    const ws = workspace(t, { handbook: NOTES });
    await runIndex(indexOptions(ws));
    const db = new Database(ws.config.indexPath);
    db.prepare("UPDATE files SET fingerprint = 'older-chunker' WHERE path = 'eng/keys.md'").run();
    db.close();
    const summary = await runIndex(indexOptions(ws));
    assert.deepEqual([summary.updated, summary.unchanged], [1, 2]);
    assert.equal(rows(ws.config.indexPath, 'SELECT DISTINCT fingerprint FROM files').length, 1);
  });

  it('records the fallback layout (the word table alone) when told to use it', async (t) => {
    const ws = workspace(t, { handbook: NOTES });
    const summary = await runIndex(indexOptions(ws, { lexicalLayout: 'words' }));
    assert.equal(summary.lexicalLayout, 'words');
    assert.deepEqual(rows(ws.config.indexPath, "SELECT value FROM meta WHERE key = 'lexical_layout'"), [
      { value: 'words' },
    ]);
    assertFtsIntact(ws.config.indexPath);
  });

  it('builds an index without vectors for embed_model none: no model loaded, no vectors, chunks sized without a tokenizer', async (t) => {
    const ws = workspace(t, { handbook: NOTES }, 'none');
    const options = indexOptions(ws);
    const summary = await runIndex(options);
    assert.deepEqual([summary.new, summary.failed, summary.modelId], [3, [], 'none']);
    assert.deepEqual(options.loads, [], 'no model loaded');
    assert.ok(!options.events.some((event) => event.kind === 'model-loading' || event.kind === 'model-download'));
    const counts = assertConsistent(ws.config.indexPath, 0);
    assert.deepEqual([counts.files, counts.vectors], [3, 0]);
    assertFtsIntact(ws.config.indexPath);
    const again = await runIndex(indexOptions(ws));
    assert.deepEqual([again.new, again.unchanged], [0, 3]);
  });

  it('gives the event loop turns while it reads, chunks, stores and replaces a large note', async (t) => {
    const paragraphs = Array.from({ length: 400 }, (_, i) => `## Part ${i}\n\n${'A sentence about keys. '.repeat(40)}`);
    const ws = workspace(t, { handbook: { ...NOTES, 'large.md': `# Large\n\n${paragraphs.join('\n\n')}\n` } }, 'none');
    const large = path.join(ws.root, 'vaults/handbook/large.md');
    /** Turns of the event loop while the run works on large.md (a setImmediate callback runs only on a new turn). */
    const turnsDuringRun = async (): Promise<{ turns: number; chunks: number }> => {
      let turns = 0;
      let running = true;
      const count = () => {
        turns += 1;
        if (running) setImmediate(count);
      };
      let startTurns = 0;
      let doneTurns = 0;
      const options = indexOptions(ws, {
        sliceMs: 0,
        onProgress: (event) => {
          if (event.kind === 'planned') {
            startTurns = turns;
            setImmediate(count);
          }
          if (event.kind === 'file-done' && event.path === 'large.md') doneTurns = turns;
        },
      });
      try {
        await runIndex(options);
      } finally {
        running = false;
      }
      const [row] = rows(
        ws.config.indexPath,
        "SELECT count(*) AS n FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.path = 'large.md'",
      );
      return { turns: doneTurns - startTurns, chunks: Number((row as { n: number }).n) };
    };
    const indexed = await turnsDuringRun();
    assert.ok(indexed.chunks >= 100, `${indexed.chunks} chunks`);
    // Reading, decoding, chunking and storing go in steps: at least a turn for each stored chunk.
    assert.ok(indexed.turns >= indexed.chunks, `${indexed.turns} turns for ${indexed.chunks} chunks`);
    writeFileSync(large, `# Large\n\n${paragraphs.slice(0, 200).join('\n\n')}\n`);
    const replaced = await turnsDuringRun();
    assert.ok(replaced.chunks >= 50 && replaced.chunks < indexed.chunks);
    // The old chunks go in steps too, before the new ones are stored.
    assert.ok(replaced.turns >= replaced.chunks + indexed.chunks / 64, `${replaced.turns} turns`);
    assertConsistent(ws.config.indexPath, 0);
    assertFtsIntact(ws.config.indexPath);
  });

  it('indexes only the chosen vaults, and prunes vaults that left the config', async (t) => {
    const ws = workspace(t, { handbook: NOTES, team: { 'x.md': 'team note' } });
    const only = await runIndex(indexOptions(ws, { vaultIds: ['team'] }));
    assert.deepEqual([only.vaults, only.new], [['team'], 1]);
    await runIndex(indexOptions(ws));
    writeConfig(ws.configPath, { embed_model: MINILM, vaults: [{ id: 'handbook', path: 'vaults/handbook' }] });
    const config = loadRagConfig(ws.configPath, ws.home);
    const summary = await runIndex(indexOptions({ ...ws, config }));
    assert.deepEqual([summary.removed, summary.unchanged], [1, 3]);
    assert.deepEqual(rows(ws.config.indexPath, 'SELECT DISTINCT vault FROM files'), [{ vault: 'handbook' }]);
  });

  it('leaves out what the exclude globs name, and drops such notes indexed before', async (t) => {
    const ws = workspace(t, {
      handbook: { ...NOTES, 'templates/daily.md': '# {{date}}\n\n## Tasks\n', 'board.excalidraw.md': 'drawing' },
    });
    assert.equal((await runIndex(indexOptions(ws))).new, 5);
    writeConfig(ws.configPath, {
      embed_model: MINILM,
      exclude: ['templates/'],
      vaults: [{ id: 'handbook', path: 'vaults/handbook', exclude: ['*.excalidraw.md'] }],
    });
    const config = loadRagConfig(ws.configPath, ws.home);
    const summary = await runIndex(indexOptions({ ...ws, config }));
    assert.deepEqual([summary.removed, summary.unchanged, summary.skipped], [2, 3, []]);
    assert.deepEqual(
      rows(ws.config.indexPath, 'SELECT path FROM files ORDER BY path').map((row) => JSON.stringify(row)),
      ['{"path":"Welcome.md"}', '{"path":"eng/keys.md"}', '{"path":"people/urlaub.md"}'],
    );
  });

  it('upgrades a format-2 index in place: re-indexes only the notes with tags or without a chunk', async (t) => {
    const ws = workspace(t, {
      handbook: { ...NOTES, 'bookmark.md': '---\ntitle: WAL\n---\n', 'outline.md': '# Plan\n\n## Beds\n' },
    });
    await runIndex(indexOptions(ws));
    // What a format-2 run left: no chunk for the frontmatter-only note, no change log, the format number.
    const db = new Database(ws.config.indexPath);
    db.exec(`DELETE FROM chunks WHERE file_id = (SELECT id FROM files WHERE path = 'bookmark.md');
      UPDATE files SET chunk_count = 0 WHERE path = 'bookmark.md';`);
    asOlderFormat(db, 2);
    db.close();
    await assert.rejects(
      IndexSnapshot.open(ws.config.indexPath, { model: ws.config.model }),
      /has format version 2, this version reads 4; run 'notegate-rag index' once to upgrade it in place \(the notes with tags or without a chunk are indexed again\)$/,
    );
    const summary = await runIndex(indexOptions(ws));
    assert.deepEqual([summary.updated, summary.unchanged], [2, 3], 'eng/keys.md (tags) and bookmark.md');
    assert.deepEqual(rows(ws.config.indexPath, "SELECT value FROM meta WHERE key = 'schema_version'"), [
      { value: '4' },
    ]);
    assert.deepEqual(rows(ws.config.indexPath, "SELECT chunk_count FROM files WHERE path = 'bookmark.md'"), [
      { chunk_count: 1 },
    ]);
    (await IndexSnapshot.open(ws.config.indexPath, { model: ws.config.model })).close();
  });

  it('skips a symlink into the iCloud container with the diode policy as the reason', async (t) => {
    const ws = workspace(t, { handbook: NOTES });
    const personal = path.join(ws.home, 'Library', 'Mobile Documents', 'iCloud~md~obsidian', 'Documents');
    mkdirSync(personal, { recursive: true });
    writeFileSync(path.join(personal, 'diary.md'), 'personal');
    symlinkSync(path.join(personal, 'diary.md'), path.join(ws.root, 'vaults', 'handbook', 'diary.md'));
    const summary = await runIndex(indexOptions(ws));
    assert.deepEqual(
      summary.skipped.map((s) => [s.path, s.reason]),
      [['diary.md', 'diode_policy']],
    );
    assert.deepEqual(rows(ws.config.indexPath, "SELECT path FROM files WHERE path = 'diary.md'"), []);
  });

  it('refuses an index built with another model until --rebuild, which re-embeds everything', async (t) => {
    const ws = workspace(t, { handbook: NOTES });
    await runIndex(indexOptions(ws));
    writeConfig(ws.configPath, { embed_model: E5_SMALL, vaults: [{ id: 'handbook', path: 'vaults/handbook' }] });
    const e5 = { ...ws, config: loadRagConfig(ws.configPath, ws.home) };
    await assert.rejects(
      runIndex(indexOptions(e5)),
      (err: unknown) => err instanceof RagError && err.code === 'ERR_INDEX_MODEL_MISMATCH',
    );
    const rebuilt = await runIndex(indexOptions(e5, { rebuild: true }));
    assert.deepEqual([rebuilt.rebuilt, rebuilt.new, rebuilt.modelId], [true, 3, E5_SMALL]);
    const bodies = rows(ws.config.indexPath, 'SELECT body FROM chunks');
    assert.ok(bodies.length > 0);
    assertConsistent(ws.config.indexPath, 384);
  });

  it('reports progress through the callback: scan, plan, then each file with totals', async (t) => {
    const ws = workspace(t, { handbook: NOTES });
    const options = indexOptions(ws);
    await runIndex(options);
    const kinds = options.events.map((e) => e.kind);
    assert.deepEqual(kinds.slice(0, 2), ['scanned', 'planned']);
    const last = options.events[options.events.length - 1];
    assert.ok(
      last?.kind === 'file-done' && last.filesDone === 3 && last.filesTotal === 3 && last.bytesDone === last.bytesTotal,
    );
  });
});
