import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { lexicalIndexText } from '../../src/lexical/index-text.js';

describe('the word table text of a chunk', () => {
  const CASES: readonly [string, string, string][] = [
    [
      'spaced scripts are left to the tokenizer',
      'Rotate the (IL-6) keys: Straße, очки',
      'Rotate the (IL-6) keys: Straße, очки',
    ],
    ['Chinese: a bigram at every position, shorter at the run end', '黑豹队的', ' 黑豹 豹队 队的 的 '],
    ['one Han character alone', '猫', ' 猫 '],
    ['Thai: trigrams of characters with their marks', 'ง่ายมาก', ' ง่าย ายม ยมา มาก าก ก '],
    ['a script change inside a word', 'Docker容器', 'Docker 容器 器 '],
    ['punctuation between runs stays', '数据，系统', ' 数据 据 ， 系统 统 '],
  ];
  for (const [label, text, expected] of CASES) {
    it(label, () => assert.equal(lexicalIndexText(text), expected));
  }
});
