import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { seededRandom } from '@notegate/kit/testing';
import type { VectorMatrix } from '../../src/store/load-vectors.js';
import { instantiateDotI8 } from '../../src/vectors/dot-kernel.js';
import { Int8VectorSearch, quantizeMatrix } from '../../src/vectors/int8-scan.js';
import { exactScan, rangesFor } from '../../src/vectors/vector-scan.js';
import { encodeModule, op, VALUE_TYPE } from '../../src/vectors/wasm-encoding.js';
import { matrixOf, unit } from '../../test-support/vector-matrices.js';

function int8Search(matrix: VectorMatrix): Int8VectorSearch {
  return Int8VectorSearch.over(matrix, quantizeMatrix(matrix));
}

describe('int8 WebAssembly scan with exact rescoring', () => {
  it('the hand-written kernel computes exact integer dot products', () => {
    const dimension = 64;
    const count = 5;
    const memory = new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true });
    const dot = instantiateDotI8(memory);
    const query = new Int16Array(memory.buffer, 0, dimension);
    const out = new Int32Array(memory.buffer, 256, count);
    const rows = new Int8Array(memory.buffer, 512, count * dimension);
    const random = seededRandom(3);
    for (let j = 0; j < dimension; j += 1) query[j] = Math.round((random() - 0.5) * 32_766);
    for (let i = 0; i < rows.length; i += 1) rows[i] = Math.round((random() - 0.5) * 254);
    rows.fill(127, 0, dimension);
    query.fill(16_383);
    dot(0, 512, count, dimension, 256);
    for (let r = 0; r < count; r += 1) {
      let expected = 0;
      for (let j = 0; j < dimension; j += 1) expected += (query[j] ?? 0) * (rows[r * dimension + j] ?? 0);
      assert.equal(out[r], expected, `row ${r}`);
    }
  });

  it('the module encoder emits a valid module (a function storing a constant)', () => {
    const bytes = encodeModule([
      {
        exportName: 'put',
        params: [VALUE_TYPE.i32],
        locals: [],
        body: [op.localGet(0), op.i32Const(-123456), op.i32Store(0)],
      },
    ]);
    const memory = new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true });
    const put = new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { memory } }).exports.put;
    assert.equal(typeof put, 'function');
    if (typeof put === 'function') put(8);
    assert.equal(new Int32Array(memory.buffer, 8, 1)[0], -123456);
  });

  for (const [label, build] of [
    ['random unit vectors', (random: () => number, d: number) => Array.from({ length: 3000 }, () => unit(random, d))],
    [
      'clusters of near-duplicates and exact duplicates',
      (random: () => number, d: number) => {
        const centers = Array.from({ length: 6 }, () => unit(random, d));
        return Array.from({ length: 3000 }, (_, i) =>
          i % 10 === 0 ? (centers[0] ?? unit(random, d)) : unit(random, d, centers[i % 6], 0.05),
        );
      },
    ],
  ] as const) {
    it(`returns exactly the plain scan's top k, filtered or not, on ${label}`, () => {
      const dimension = 384;
      const random = seededRandom(label.length);
      const vectors = build(random, dimension);
      const matrix = matrixOf(vectors, (i) => (i % 50 === 0 ? 'a' : 'b'), dimension);
      const fast = int8Search(matrix);
      const plain = exactScan(matrix);
      const filters = [
        rangesFor(matrix, undefined, undefined),
        rangesFor(matrix, ['a'], undefined),
        rangesFor(matrix, ['b'], ['n1']),
        [],
      ];
      for (let q = 0; q < 40; q += 1) {
        const query = q % 4 === 0 ? (vectors[q] ?? unit(random, dimension)) : unit(random, dimension);
        for (const ranges of filters) {
          for (const k of [1, 8, 50, 200]) {
            assert.deepEqual(fast.topK(query, k, ranges), plain.topK(query, k, ranges), `query ${q}, k ${k}`);
          }
        }
      }
    });
  }

  it('copes with an all-zero query and an empty matrix', () => {
    const dimension = 32;
    const random = seededRandom(9);
    const matrix = matrixOf([unit(random, dimension), unit(random, dimension)], () => 'a', dimension);
    const fast = int8Search(matrix);
    const zero = new Float32Array(dimension);
    const all = rangesFor(matrix, undefined, undefined);
    assert.deepEqual(fast.topK(zero, 2, all), exactScan(matrix).topK(zero, 2, all));
    const empty = int8Search(matrixOf([], () => 'a', dimension));
    assert.deepEqual(empty.topK(zero, 5, []), []);
  });

  it('refuses a dimension the kernel cannot step through', () => {
    const random = seededRandom(1);
    assert.throws(() => quantizeMatrix(matrixOf([unit(random, 40)], () => 'a', 40)), /multiple of 32/);
  });

  it('leaves deleted rows out before the cut, as if they were not there', () => {
    const dimension = 64;
    const random = seededRandom(17);
    const vectors = Array.from({ length: 500 }, () => unit(random, dimension));
    const matrix = matrixOf(vectors, () => 'a', dimension);
    const deleted = new Uint8Array(matrix.count);
    for (let row = 0; row < matrix.count; row += 3) deleted[row] = 1;
    // Without the deleted rows: the k-th surviving chunk id (ascending) is id k + 1 there.
    const survivors = Array.from(matrix.chunkIds)
      .filter((_, row) => deleted[row] !== 1)
      .sort((a, b) => a - b);
    const kept = matrixOf(
      survivors.map((id) => vectors[id - 1] ?? new Float32Array(dimension)),
      () => 'a',
      dimension,
    );
    const fast = int8Search(matrix);
    const everything = rangesFor(matrix, undefined, undefined);
    for (let q = 0; q < 20; q += 1) {
      // Every other query is a deleted row itself, which would rank first.
      const deletedId = matrix.chunkIds[q * 3] ?? 1;
      const query = q % 2 === 0 ? (vectors[deletedId - 1] ?? unit(random, dimension)) : unit(random, dimension);
      const expected = exactScan(kept)
        .topK(query, 10, rangesFor(kept, undefined, undefined))
        .map((hit) => ({ chunkId: survivors[hit.chunkId - 1], score: hit.score }));
      const plain = exactScan(matrix).topK(query, 10, everything, deleted);
      assert.deepEqual(
        plain.map((hit) => ({ chunkId: hit.chunkId, score: hit.score })),
        expected,
        `query ${q}`,
      );
      assert.deepEqual(fast.topK(query, 10, everything, deleted), plain, `query ${q}`);
    }
  });
});
