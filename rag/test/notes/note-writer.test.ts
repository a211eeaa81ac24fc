import assert from 'node:assert/strict';
import { mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
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
