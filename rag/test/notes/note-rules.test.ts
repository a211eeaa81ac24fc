import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { terminalJson } from '@notegate/kit';
import { notePathProblem, numberedName, titleFileName } from '../../src/notes/note-path.js';

describe('note paths (notes.write)', () => {
  const cases: [string, string | undefined][] = [
    ['plan.md', undefined],
    ['projects/2026/plan.markdown', undefined],
    ['Überprüfung der Schlüssel.md', undefined],
    ['../escape.md', "has a '..' segment"],
    ['a/../../escape.md', "has a '..' segment"],
    ['./plan.md', "has a '.' segment"],
    ['/etc/plan.md', 'is absolute'],
    ['C:/plan.md', 'is absolute'],
    ['a\\b.md', 'contains a backslash'],
    ['a//b.md', 'has an empty segment'],
    ['a/', 'has an empty segment'],
    ['.obsidian/plan.md', 'has a hidden segment'],
    ['a/.plan.md', 'has a hidden segment'],
    ['plan.txt', 'does not end in .md or .markdown'],
    ['plan', 'does not end in .md or .markdown'],
    ['pl\u0000an.md', 'contains the control character U+0000'],
    ['pl\u007fan.md', 'contains the control character U+007F'],
    ['c1\u0085next-line.md', 'contains the control character U+0085'],
    ['c1/\u009b2J.md', 'contains the control character U+009B'],
    ['invoice\u202egpj.md', 'contains the bidirectional formatting character U+202E'],
    ['a\u2066b\u2069.md', 'contains the bidirectional formatting character U+2066'],
    ['lone\ud800.md', 'contains the unpaired surrogate U+D800'],
    ['lone\udc00x.md', 'contains the unpaired surrogate U+DC00'],
    ['emoji 😀.md', undefined],
    [`${'x'.repeat(256)}.md`, 'has a segment over 255 bytes'],
  ];
  for (const [path, problem] of cases) {
    it(`${terminalJson(path).slice(0, 40)}: ${problem ?? 'accepted'}`, () => {
      assert.equal(notePathProblem(path), problem);
    });
  }
});

describe('file names from titles', () => {
  const cases: [string, string | undefined][] = [
    ['Quarterly key ceremony', 'Quarterly key ceremony.md'],
    ['  Rotate: keys / certs?  ', 'Rotate keys certs.md'],
    ['../../etc/passwd', 'etc passwd.md'],
    ['鍵の確認', '鍵の確認.md'],
    ['Ｆｕｌｌｗｉｄｔｈ', 'Fullwidth.md'],
    ['snake_case-name', 'snake_case-name.md'],
    ['?!…—', undefined],
    ['---', undefined],
    ['x'.repeat(100), `${'x'.repeat(80)}.md`],
  ];
  for (const [title, name] of cases) {
    it(`${JSON.stringify(title).slice(0, 30)} → ${name ?? 'refused'}`, () => {
      assert.equal(titleFileName(title), name);
    });
  }

  it('numbers a taken name before its extension', () => {
    assert.deepEqual(
      [1, 2, 3].map((n) => numberedName('Plan.md', n)),
      ['Plan.md', 'Plan 2.md', 'Plan 3.md'],
    );
  });
});
