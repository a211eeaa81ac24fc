import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mean_pooling, Tensor } from '@huggingface/transformers';
import { seededRandom } from '@notegate/kit/testing';
import { meanPooledRows } from '../../src/embed/mean-pooling.js';

describe('meanPooledRows', () => {
  it('gives the very numbers of transformers.js mean_pooling then normalize(2, -1), padding left out', () => {
    const random = seededRandom(7);
    const table: [rows: number, tokens: number, dimension: number][] = [
      [1, 1, 4],
      [1, 37, 384],
      [3, 12, 384],
      [4, 256, 16],
    ];
    for (const [rows, tokens, dimension] of table) {
      const data = Float32Array.from({ length: rows * tokens * dimension }, () => random() * 4 - 2);
      // Each row keeps a prefix of its tokens, as padding leaves it: 1..tokens.
      const mask = BigInt64Array.from({ length: rows * tokens }, (_, i) =>
        i % tokens < 1 + ((Math.floor(i / tokens) * 5) % tokens) ? 1n : 0n,
      );
      const expected = mean_pooling(
        new Tensor('float32', data, [rows, tokens, dimension]),
        new Tensor('int64', mask, [rows, tokens]),
      ).normalize(2, -1);
      const vectors = meanPooledRows({ data, rows, tokens, dimension }, mask);
      assert.equal(vectors.length, rows);
      vectors.forEach((vector, row) => {
        assert.deepEqual(
          vector,
          Float32Array.from(expected.data).slice(row * dimension, (row + 1) * dimension),
          `${rows}x${tokens}x${dimension} row ${row}`,
        );
      });
    }
  });
});
