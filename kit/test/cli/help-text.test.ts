import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { twoColumns, wrapWords } from '../../src/cli/help-text.js';

describe('wrapWords', () => {
  const cases: [string, string, number, string[]][] = [
    ['fits on one line', 'a short text', 20, ['a short text']],
    ['wraps between words, never inside one', 'alpha beta gamma delta', 11, ['alpha beta', 'gamma delta']],
    [
      'keeps a word longer than the width whole',
      'tiny supercalifragilistic end',
      10,
      ['tiny', 'supercalifragilistic', 'end'],
    ],
    ['reflows a single line break', 'one two\nthree four', 40, ['one two three four']],
    ['keeps an empty line between paragraphs', 'first\n\nsecond', 40, ['first', '', 'second']],
    [
      'keeps indented list items on their own lines, hanging their text',
      'Exit codes:\n  0  success and a long tail\n  2  bad option',
      20,
      ['Exit codes:', '  0  success and a', '     long tail', '  2  bad option'],
    ],
  ];
  for (const [name, text, width, expected] of cases) {
    it(name, () => assert.deepEqual(wrapWords(text, width), expected));
  }
});

describe('twoColumns', () => {
  it('aligns the right column and hangs wrapped text under it', () => {
    const text = twoColumns(
      [
        ['--a', 'first option'],
        ['--bb X', 'second option, which wraps here'],
      ],
      30,
    );
    assert.equal(text, '  --a     first option\n  --bb X  second option, which\n          wraps here');
  });

  it('puts the text of a left cell wider than the limit on the next lines', () => {
    assert.equal(twoColumns([['--long-option VALUE', 'text']], 40, 8), '  --long-option VALUE\n            text');
  });
});
