import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { approximateTokenCount } from '../../src/chunk/approximate-tokens.js';

describe('token count without a tokenizer (lexical-only indexes)', () => {
  const CASES: readonly [string, number][] = [
    ['', 0],
    ['keys', 1],
    ['rotate the signing keys', 5],
    ['Verkehrsberuhigung', 3],
    ['DEC-0054.', 4],
    ['数据库', 3],
    ['Docker容器', 3],
    ['ภาษาไทย', 7],
  ];
  for (const [text, expected] of CASES) {
    it(`counts ${JSON.stringify(text)} as ${expected}`, () => assert.equal(approximateTokenCount(text), expected));
  }
});
