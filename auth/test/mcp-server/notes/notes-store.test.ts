import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { parseNoteFile } from '../../../src/mcp-server/notes/note-file.js';
import { NotesStore, UnknownNoteError } from '../../../src/mcp-server/notes/notes-store.js';
import { ManualClock } from '../../support/manual-clock.js';

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'notes-store-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('NotesStore', () => {
  it('writes one markdown file per note with server-chosen ids and finds it again after a restart', async (t) => {
    const dir = tempDir(t);
    const clock = new ManualClock();
    const store = await NotesStore.open(dir, { clock: clock.now });
    const written = await store.write({ title: 'Key: "rotation"\n---', body: '# Plan\n\nRotate keys.' });
    assert.match(written.id, /^[0-9a-f]{24}$/);
    assert.equal(written.created, true);
    assert.equal(written.updatedAt, '2026-11-22T08:30:00.000Z');
    assert.deepEqual(readdirSync(dir), [`${written.id}.md`], 'no temporary file left behind');
    const file = readFileSync(join(dir, `${written.id}.md`), 'utf8');
    assert.match(file, /^---\n/);
    assert.deepEqual(parseNoteFile(written.id, file, 0), {
      id: written.id,
      title: 'Key: "rotation"\n---',
      body: '# Plan\n\nRotate keys.',
      updatedAt: '2026-11-22T08:30:00.000Z',
    });
    const reopened = await NotesStore.open(dir, { clock: clock.now });
    const [hit] = await reopened.search('rotate', 10);
    assert.equal(hit?.id, written.id);
    assert.equal(hit?.title, 'Key: "rotation"\n---');
  });

  it('replaces a note by id and refuses ids that do not exist', async (t) => {
    const store = await NotesStore.open(tempDir(t));
    const first = await store.write({ title: 'v1', body: 'old words' });
    const second = await store.write({ title: 'v2', body: 'new words', id: first.id });
    assert.deepEqual([second.id, second.created], [first.id, false]);
    assert.deepEqual(await store.search('old', 10), []);
    assert.equal((await store.search('new', 10))[0]?.title, 'v2');
    await assert.rejects(store.write({ title: 't', body: 'b', id: '0123456789abcdef01234567' }), UnknownNoteError);
    assert.equal(store.size, 1);
  });

  it('keeps every note written concurrently under different ids', async (t) => {
    const dir = tempDir(t);
    const store = await NotesStore.open(dir);
    const writes = await Promise.all(
      Array.from({ length: 25 }, (_, i) => store.write({ title: `note ${i}`, body: `body number${i}` })),
    );
    assert.equal(new Set(writes.map((w) => w.id)).size, 25);
    assert.equal(readdirSync(dir).length, 25);
    const reopened = await NotesStore.open(dir);
    assert.equal(reopened.size, 25);
    assert.equal((await reopened.search('number17', 5))[0]?.title, 'note 17');
  });

  it('lets the last of concurrent writers of one id win, never leaving a torn file', async (t) => {
    const dir = tempDir(t);
    const store = await NotesStore.open(dir);
    const { id } = await store.write({ title: 'seed', body: 'seed' });
    const bodies = Array.from({ length: 12 }, (_, i) => `${String(i).repeat(4)} `.repeat(20_000));
    const other = await NotesStore.open(dir);
    await Promise.all(bodies.map((body, i) => (i % 2 === 0 ? store : other).write({ title: `writer ${i}`, body, id })));
    assert.deepEqual(readdirSync(dir), [`${id}.md`]);
    const final = parseNoteFile(id, readFileSync(join(dir, `${id}.md`), 'utf8'), 0);
    const index = Number(final.title.replace('writer ', ''));
    assert.equal(final.body, bodies[index], 'the file is one complete version');
    const [mine] = await store.search(final.title, 1);
    if (index % 2 === 0) assert.equal(mine?.title, final.title, 'in-process index agrees with the last rename');
  });

  it('finds notes written by another process after the rescan interval, and forgets deleted ones', async (t) => {
    const dir = tempDir(t);
    const clock = new ManualClock();
    const store = await NotesStore.open(dir, { clock: clock.now });
    const id = 'abcdefabcdefabcdefabcdef';
    writeFileSync(join(dir, `${id}.md`), '# Outside edit\n\nWritten by a text editor, no front matter.');
    writeFileSync(join(dir, 'README.txt'), 'not a note');
    writeFileSync(join(dir, '.abcdefabcdefabcdefabcdef.md.123.tmp'), 'half a note');
    assert.deepEqual(await store.search('editor', 10), [], 'not yet rescanned');
    clock.advanceMs(1_000);
    const [hit] = await store.search('editor', 10);
    assert.equal(hit?.id, id);
    assert.equal(hit?.title, 'Outside edit');
    rmSync(join(dir, `${id}.md`));
    clock.advanceMs(1_000);
    assert.deepEqual(await store.search('editor', 10), []);
  });

  it('answers search with BM25 order, snippets, ISO 8601 times and the limit', async (t) => {
    const clock = new ManualClock();
    const store = await NotesStore.open(tempDir(t), { clock: clock.now });
    await store.write({ title: 'Überprüfung der Schlüssel', body: 'Jährliche ÜBERPRÜFUNG aller Schlüssel.' });
    clock.advanceMs(1);
    await store.write({ title: '東京の会議', body: '明日は東京都で会議があります。' });
    for (let i = 0; i < 12; i++) await store.write({ title: `Meeting ${i}`, body: `meeting notes ${i}` });
    const [german] = await store.search('überprüfung', 10);
    assert.equal(german?.title, 'Überprüfung der Schlüssel');
    assert.equal(german?.snippet, 'Jährliche ÜBERPRÜFUNG aller Schlüssel.');
    assert.match(german?.updatedAt ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal((await store.search('Überprüfung', 10))[0]?.id, german?.id);
    assert.equal((await store.search('東京', 10))[0]?.title, '東京の会議');
    assert.equal((await store.search('meeting', 5)).length, 5);
    assert.equal((await store.search('meeting', 50)).length, 12);
    assert.deepEqual(await store.search('...', 10), []);
  });
});
