import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { randomHex } from '../src/random-hex.js';

describe('randomHex', () => {
  it('returns lowercase hex of the requested size, never the same value twice across pool refills', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 1_000; i++) {
      const value = randomHex(16);
      assert.match(value, /^[0-9a-f]{32}$/);
      seen.add(value);
    }
    assert.equal(seen.size, 1_000);
  });

  it('serves sizes larger than its pool directly', () => {
    assert.match(randomHex(5_000), /^[0-9a-f]{10000}$/);
  });
});
