import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runSteps } from '@notegate/kit';
import { splitOversize } from '../../src/chunk/split-oversize.js';

/** One token per character: easy to reason about. */
const chars = (text: string) => text.length;

describe('splitOversize', () => {
  it('packs whole lines up to the budget', () => {
    const pieces = runSteps(splitOversize(['aaaa', 'bbbb', 'cccc', 'dd'], 0, 3, 9, chars));
    assert.deepEqual(pieces, [
      { start: 0, end: 1, tokens: 8 },
      { start: 2, end: 3, tokens: 6 },
    ]);
  });

  it('splits a too-long line at whitespace, and a too-long word by characters', () => {
    const pieces = runSteps(splitOversize(['aa bb cc', 'x'.repeat(12)], 0, 1, 6, chars));
    assert.deepEqual(
      pieces.map((p) => p.partialText),
      ['aa bb ', 'cc', 'xxxxxx', 'xxxxxx'],
    );
    assert.ok(pieces.every((p) => p.tokens <= 6));
  });
});
