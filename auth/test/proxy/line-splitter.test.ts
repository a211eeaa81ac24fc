import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LineSplitter } from '../../src/proxy/line-splitter.js';

function split(chunks: readonly string[], maxLineBytes = 16, end = false) {
  const lines: string[] = [];
  let oversize = 0;
  const splitter = new LineSplitter(
    maxLineBytes,
    (line) => lines.push(line),
    () => oversize++,
  );
  for (const chunk of chunks) splitter.push(Buffer.from(chunk));
  if (end) splitter.end();
  return { lines, oversize };
}

describe('cutting stdin into lines', () => {
  const cases: [string, string[], string[]][] = [
    ['one line per newline', ['a\nb\n'], ['a', 'b']],
    ['a line split across chunks', ['ab', 'c\nd', 'e\n'], ['abc', 'de']],
    ['CRLF line ends', ['a\r\nb\r\n'], ['a', 'b']],
    ['an unfinished line waits for its newline', ['abc'], []],
    ['empty lines are lines', ['\n\n'], ['', '']],
  ];
  for (const [what, chunks, expected] of cases) {
    it(what, () => assert.deepEqual(split(chunks).lines, expected));
  }

  it('keeps a multi-byte character split across chunks intact', () => {
    const bytes = Buffer.from('é\n');
    const lines: string[] = [];
    const splitter = new LineSplitter(
      16,
      (line) => lines.push(line),
      () => undefined,
    );
    splitter.push(bytes.subarray(0, 1));
    splitter.push(bytes.subarray(1));
    assert.deepEqual(lines, ['é']);
  });

  it('counts a last line without a newline when the input ends', () => {
    assert.deepEqual(split(['a\nlast'], 16, true).lines, ['a', 'last']);
  });

  it('reports a line over the bound once, skips it to its end and reads on', () => {
    const { lines, oversize } = split(['0123456789', '0123456789', '01234\nok\n'], 16);
    assert.deepEqual(lines, ['ok']);
    assert.equal(oversize, 1);
  });

  it('accepts a line of exactly the bound', () => {
    assert.deepEqual(split(['0123456789abcdef\n'], 16).lines, ['0123456789abcdef']);
  });
});
