import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, readdirSync, renameSync, symlinkSync } from 'node:fs';
import { mkdir, mkdtemp, open, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { writeFileAtomic } from '@notegate/kit';
import { NoteFolder } from '../../src/notes/note-folder.js';
import { NotePlaceError } from '../../src/notes/note-target.js';
import { NoteWriter } from '../../src/notes/note-writer.js';

describe('NoteWriter', () => {
  it('gives a new note the next free number when another writer takes its name meanwhile', async (t) => {
    const vault = await realpath(await mkdtemp(join(tmpdir(), 'notegate-notes-')));
    t.after(() => rm(vault, { recursive: true, force: true }));
    const writer = new NoteWriter(vault);
    await writer.write({ title: 'Plan', body: 'first' });
    // Both start before either writes: the second "Plan" numbers to "Plan 2.md", the note titled "Plan 2" too.
    const [numbered, titled] = await Promise.all([
      writer.write({ title: 'Plan', body: 'second' }),
      writer.write({ title: 'Plan 2', body: 'titled' }),
    ]);
    assert.deepEqual([numbered.path, titled.path].sort(), ['Plan 2 2.md', 'Plan 2.md'], 'two notes, none replaced');
    assert.ok(numbered.created && titled.created);
    for (const written of [numbered, titled]) {
      const text = await readFile(join(vault, written.path), 'utf8');
      assert.match(text, written === numbered ? /second/ : /titled/);
    }
  });
});

/**
 * Holds every thread of libuv's pool in the open of a FIFO that nobody writes to yet: the file-system
 * calls made meanwhile wait in the queue until `release`, so a test can change the disk between a
 * call and the moment it runs.
 */
async function holdThreadPool(dir: string) {
  const fifos = Array.from({ length: Number(process.env.UV_THREADPOOL_SIZE ?? 4) }, (_, i) => join(dir, `fifo-${i}`));
  for (const fifo of fifos) execFileSync('mkfifo', [fifo]);
  const opened = fifos.map((fifo) => open(fifo, 'r'));
  return {
    release: async () => {
      for (const fifo of fifos) closeSync(openSync(fifo, 'w'));
      for (const handle of await Promise.all(opened)) await handle.close();
    },
  };
}

/** Every file under `dir`, relative, in order. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .sort();
}

describe('NoteWriter and folders swapped for links', () => {
  async function layout(t: TestContext) {
    const base = await realpath(await mkdtemp(join(tmpdir(), 'notegate-notes-swap-')));
    t.after(() => rm(base, { recursive: true, force: true }));
    const vault = join(base, 'vault');
    const outside = join(base, 'outside');
    await mkdir(join(vault, 'sub'), { recursive: true });
    await mkdir(outside);
    return { base, vault, outside };
  }

  for (const notePath of ['sub/plan.md', 'sub/new/plan.md']) {
    it(`writes nothing outside the vault when a folder is swapped for a link while ${notePath} waits`, async (t) => {
      const { base, vault, outside } = await layout(t);
      const writer = new NoteWriter(vault);
      const pool = await holdThreadPool(base);
      const written = writer.write({ title: 't', body: 'b', path: notePath });
      const settled = written.then(
        () => 'written',
        (err: unknown) => err,
      );
      await new Promise((resolve) => setImmediate(resolve));
      renameSync(join(vault, 'sub'), join(base, 'old-sub'));
      symlinkSync(outside, join(vault, 'sub'));
      await pool.release();
      const outcome = await settled;
      assert.ok(outcome instanceof NotePlaceError, String(outcome));
      assert.match(outcome.detail, new RegExp(`^${notePath}: its folder is .*outside, outside the vault `));
      assert.deepEqual(readdirSync(outside), [], 'no note, no folder, no temporary file outside the vault');
      assert.deepEqual(filesUnder(join(base, 'old-sub')), []);
    });
  }

  it('keeps writing into the folder it opened: a swap after the open sends nothing out of the vault', async (t) => {
    const { vault, outside } = await layout(t);
    const folder = await NoteFolder.openFor(vault, 'sub/plan.md');
    t.after(() => folder.close());
    renameSync(join(vault, 'sub'), join(vault, 'moved'));
    symlinkSync(outside, join(vault, 'sub'));
    await writeFileAtomic(folder.path, 'plan.md', 'note');
    await folder.checkInside(vault, 'sub/plan.md');
    assert.deepEqual(readdirSync(outside), []);
    assert.deepEqual(filesUnder(vault), ['moved/plan.md']);
  });

  it('knows when the folder it opened was moved out of the vault', async (t) => {
    const { base, vault } = await layout(t);
    const folder = await NoteFolder.openFor(vault, 'sub/plan.md');
    t.after(() => folder.close());
    renameSync(join(vault, 'sub'), join(base, 'moved-out'));
    await assert.rejects(
      folder.checkInside(vault, 'sub/plan.md'),
      /sub\/plan\.md: its folder is .*moved-out, outside the vault/,
    );
  });
});
