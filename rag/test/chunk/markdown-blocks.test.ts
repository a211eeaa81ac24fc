import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runSteps } from '@notegate/kit';
import { blockSteps } from '../../src/chunk/markdown-blocks.js';

const blocksOf = (text: string) =>
  runSteps(blockSteps(text.split('\n'), 0)).map((b) =>
    b.kind === 'heading' ? [b.kind, b.level, b.text, b.start] : [b.kind, b.start, b.end],
  );

describe('blockSteps', () => {
  it('separates ATX headings, paragraphs and fences', () => {
    assert.deepEqual(
      blocksOf('# Title\n\npara one\nstill one\n\n## Sub ##\n```js\ncode\n\n# not a heading\n```\nafter'),
      [
        ['heading', 1, 'Title', 0],
        ['text', 2, 3],
        ['heading', 2, 'Sub', 5],
        ['fence', 6, 10],
        ['text', 11, 11],
      ],
    );
  });

  it('closes a fence only with the same character and at least the same length', () => {
    assert.deepEqual(blocksOf('````\n```\n~~~~\n````\ntext'), [
      ['fence', 0, 3],
      ['text', 4, 4],
    ]);
  });

  it('runs an unclosed fence to the end of the note', () => {
    assert.deepEqual(blocksOf('intro\n~~~\ncode\n# inside'), [
      ['text', 0, 0],
      ['fence', 1, 3],
    ]);
  });

  it('does not take #hashtags or 7 hashes for headings', () => {
    assert.deepEqual(blocksOf('#tag line\n####### seven'), [['text', 0, 1]]);
  });
});
