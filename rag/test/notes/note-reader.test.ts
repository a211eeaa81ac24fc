import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { NoteReadError, readNote } from '../../src/notes/note-reader.js';
import { tempDir, writeFiles } from '../../test-support/fixtures.js';

function problemOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof NoteReadError, String(err));
    return `${err.problem}: ${err.detail}`;
  }
  assert.fail('expected a NoteReadError');
}

describe('readNote', () => {
  it('returns the lines asked for, numbered as the chunker numbers them', (t) => {
    const vault = tempDir(t);
    writeFiles(vault, { 'a.md': '# A\r\n\r\none\rtwo\nthree\n', 'empty.md': '', 'ns/b.md': 'only line' });
    const table: [string, { lineStart?: number; lineEnd?: number }, string, number, number][] = [
      ['a.md', {}, '# A\n\none\ntwo\nthree', 1, 5],
      ['a.md', { lineStart: 3 }, 'one\ntwo\nthree', 3, 5],
      ['a.md', { lineStart: 2, lineEnd: 3 }, '\none', 2, 3],
      ['a.md', { lineStart: 4, lineEnd: 99 }, 'two\nthree', 4, 5],
      ['a.md', { lineStart: 5, lineEnd: 5 }, 'three', 5, 5],
      ['ns/b.md', {}, 'only line', 1, 1],
      ['empty.md', {}, '', 1, 0],
    ];
    for (const [file, range, text, lineStart, lineEnd] of table) {
      const note = readNote(vault, file, range);
      assert.deepEqual(
        [note.text, note.lineStart, note.lineEnd, note.truncated],
        [text, lineStart, lineEnd, false],
        `${file} ${JSON.stringify(range)}`,
      );
    }
    assert.equal(readNote(vault, 'a.md', {}).totalLines, 5);
  });

  it('stops at the byte cap on a whole line and says so; a first line over the cap is cut on a character', (t) => {
    const vault = tempDir(t);
    writeFiles(vault, { 'long.md': 'aaaa\nbbbb\ncccc\n', 'wide.md': `${'é'.repeat(10)}\nnext\n` });
    const capped = readNote(vault, 'long.md', {}, 10);
    assert.deepEqual([capped.text, capped.lineEnd, capped.truncated], ['aaaa\nbbbb', 2, true]);
    const exact = readNote(vault, 'long.md', {}, 14);
    assert.deepEqual([exact.text, exact.lineEnd, exact.truncated], ['aaaa\nbbbb\ncccc', 3, false]);
    const wide = readNote(vault, 'wide.md', {}, 5);
    assert.deepEqual([wide.text, wide.lineEnd, wide.truncated], ['éé', 1, true]);
  });

  it('refuses paths out of the vault, missing notes, ranges outside the note and what is not text, naming each', (t) => {
    const base = tempDir(t);
    const vault = path.join(base, 'vault');
    mkdirSync(vault);
    writeFiles(base, {
      'outside.md': '# Out\n',
      'vault/a.md': 'one\ntwo\n',
      'vault/bin.md': Buffer.from([0xff, 0xfe, 0x00]),
    });
    symlinkSync(path.join(base, 'outside.md'), path.join(vault, 'link.md'));
    symlinkSync(base, path.join(vault, 'up'));
    mkdirSync(path.join(vault, 'folder.md'));
    writeFileSync(path.join(vault, 'notes.txt'), 'text');
    const table: [string, { lineStart?: number; lineEnd?: number }, RegExp][] = [
      ['../outside.md', {}, /^path: path has a '\.\.' segment$/],
      ['/etc/passwd.md', {}, /^path: path is absolute$/],
      ['.trash/a.md', {}, /^path: path has a hidden segment$/],
      ['notes.txt', {}, /^path: path does not end in \.md/],
      ['link.md', {}, /^path: link\.md resolves to .*outside\.md, outside the vault/],
      ['up/outside.md', {}, /^path: up\/outside\.md resolves to .*, outside the vault/],
      ['folder.md', {}, /^path: folder\.md is not a regular file$/],
      ['gone.md', {}, /^missing: no file at gone\.md$/],
      ['a.md', { lineStart: 3 }, /^range: line_start 3 is past the note's 2 lines$/],
      ['a.md', { lineStart: 2, lineEnd: 1 }, /^range: line_end 1 is before line_start 2$/],
      ['bin.md', {}, /^not_text: bin\.md is not valid UTF-8$/],
    ];
    for (const [file, range, expected] of table)
      assert.match(
        problemOf(() => readNote(vault, file, range)),
        expected,
        file,
      );
  });
});
