import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { seededRandom } from '@notegate/kit/testing';
import { instantiateHamming } from '../../src/vectors/hamming-kernel.js';
import { codeBytesOf, SignCodeSearch, signCodesOf } from '../../src/vectors/sign-codes.js';
import { dotRow, exactScan, type RowRange, rangesFor } from '../../src/vectors/vector-scan.js';
import { matrixOf, unit } from '../../test-support/vector-matrices.js';

/** Bits set in a byte, the plain way: the reference the kernel must match. */
function bitsOf(byte: number): number {
  let count = 0;
  for (let b = byte; b !== 0; b >>= 1) count += b & 1;
  return count;
}

function referenceDistance(a: Uint8Array, b: Uint8Array): number {
  let distance = 0;
  for (let i = 0; i < a.length; i += 1) distance += bitsOf((a[i] as number) ^ (b[i] as number));
  return distance;
}

/** The code of one row, the plain way: bit j when component j lies above the mean of column j. */
function referenceCode(data: Float32Array, dimension: number, count: number, row: number): Uint8Array {
  const code = new Uint8Array(codeBytesOf(dimension));
  for (let j = 0; j < dimension; j += 1) {
    let sum = 0;
    for (let r = 0; r < count; r += 1) sum += data[r * dimension + j] as number;
    if ((data[row * dimension + j] as number) > sum / count) code[j >> 3] = (code[j >> 3] as number) | (1 << (j & 7));
  }
  return code;
}

const clustered = (random: () => number, count: number, dimension: number) => {
  const centres = Array.from({ length: 5 }, () => unit(random, dimension));
  return Array.from({ length: count }, (_, i) => unit(random, dimension, centres[i % 5], 0.3));
};

describe('Hamming kernel', () => {
  for (const bytes of [8, 16, 48, 136, 512]) {
    it(`matches a plain popcount of codes of ${bytes} bytes, distances and histogram`, () => {
      const count = 37;
      const memory = new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true });
      const hamming = instantiateHamming(memory, bytes);
      const random = seededRandom(bytes);
      const histogramAt = 1024;
      const distancesAt = histogramAt + (bytes * 8 + 1) * 4;
      const codesAt = Math.ceil((distancesAt + count * 2) / 16) * 16;
      const bytesOf = (at: number) => new Uint8Array(memory.buffer, at, bytes);
      const query = bytesOf(0);
      for (let i = 0; i < bytes; i += 1) query[i] = Math.floor(random() * 256);
      const codes = new Uint8Array(memory.buffer, codesAt, count * bytes);
      for (let i = 0; i < codes.length; i += 1) codes[i] = Math.floor(random() * 256);
      codes.set(query, 0); // distance 0
      for (let i = 0; i < bytes; i += 1) codes[bytes + i] = ~(query[i] as number) & 0xff; // every bit differs
      hamming(0, codesAt, count, distancesAt, histogramAt);
      const distances = new Uint16Array(memory.buffer, distancesAt, count);
      const expected = Array.from({ length: count }, (_, r) => referenceDistance(query, bytesOf(codesAt + r * bytes)));
      assert.deepEqual([...distances], expected);
      assert.equal(distances[0], 0);
      assert.equal(distances[1], bytes * 8);
      const histogram = new Uint32Array(memory.buffer, histogramAt, bytes * 8 + 1);
      const counted = new Array<number>(bytes * 8 + 1).fill(0);
      for (const d of expected) counted[d] = (counted[d] as number) + 1;
      assert.deepEqual([...histogram], counted);
    });
  }

  it('refuses a code width it cannot handle', () => {
    const memory = new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true });
    for (const bytes of [0, 12, 520]) assert.throws(() => instantiateHamming(memory, bytes), RangeError);
  });
});

describe('sign codes', () => {
  it('set a bit per dimension above the mean, padded to whole words', () => {
    const random = seededRandom(11);
    for (const dimension of [32, 96, 384]) {
      const vectors = clustered(random, 23, dimension);
      const matrix = matrixOf(vectors, () => 'a', dimension);
      const codes = signCodesOf(matrix);
      const bytes = codeBytesOf(dimension);
      assert.equal(bytes, Math.ceil(dimension / 64) * 8);
      const search = SignCodeSearch.over(matrix, codes, () => 1);
      // With one candidate, the row returned is the one whose code is nearest the query's (ties: first row).
      for (let q = 0; q < 5; q += 1) {
        const query = unit(random, dimension);
        const queryCode = new Uint8Array(bytes);
        const centreOf = (j: number) => codes.centre[j] as number;
        for (let j = 0; j < dimension; j += 1) {
          if ((query[j] as number) > centreOf(j)) queryCode[j >> 3] = (queryCode[j >> 3] as number) | (1 << (j & 7));
        }
        let nearest = -1;
        let nearestDistance = Number.POSITIVE_INFINITY;
        for (let row = 0; row < matrix.count; row += 1) {
          const d = referenceDistance(queryCode, referenceCode(matrix.data, dimension, matrix.count, row));
          if (d < nearestDistance) {
            nearest = row;
            nearestDistance = d;
          }
        }
        const [hit] = search.topK(query, 1, [[0, matrix.count]]);
        assert.equal(hit?.row, nearest, `dimension ${dimension}, query ${q}`);
      }
    }
  });

  it('is the exact scan wherever the rows passing the filter are no more than the candidates', () => {
    const random = seededRandom(5);
    const dimension = 64;
    const vectors = clustered(random, 300, dimension);
    const matrix = matrixOf(vectors, (i) => (i % 10 === 0 ? 'a' : 'b'), dimension);
    const approximate = SignCodeSearch.over(matrix, signCodesOf(matrix), () => 300);
    const exact = exactScan(matrix);
    const deleted = new Uint8Array(matrix.count);
    for (let row = 0; row < matrix.count; row += 7) deleted[row] = 1;
    for (const vaults of [undefined, ['a'], ['b']]) {
      const ranges = rangesFor(matrix, vaults, undefined);
      for (const k of [1, 10, 50]) {
        const query = unit(random, dimension);
        assert.deepEqual(approximate.topK(query, k, ranges), exact.topK(query, k, ranges));
        assert.deepEqual(approximate.topK(query, k, ranges, deleted), exact.topK(query, k, ranges, deleted));
      }
    }
  });

  it('finds every candidate where more rows lie within the cut than the selection kernel lists a call', () => {
    const random = seededRandom(29);
    const dimension = 16;
    const matrix = matrixOf(clustered(random, 20_003, dimension), () => 'a', dimension);
    const approximate = SignCodeSearch.over(matrix, signCodesOf(matrix), (_, rows) => rows);
    const exact = exactScan(matrix);
    const ranges: RowRange[] = [
      [3, 12_000],
      [12_005, 20_003],
    ];
    const query = unit(random, dimension);
    assert.deepEqual(approximate.topK(query, 300, ranges), exact.topK(query, 300, ranges));
  });

  it('takes every deleted row out of the count, at any range boundary, wherever the flags lie in their buffer', () => {
    const random = seededRandom(23);
    const dimension = 64;
    const matrix = matrixOf(clustered(random, 300, dimension), () => 'a', dimension);
    const ranges: RowRange[] = [
      [1, 6],
      [9, 150],
      [151, 299],
    ];
    const aligned = new Uint8Array(matrix.count);
    for (const row of [0, 1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 147, 148, 149, 150, 151, 152, 203, 296, 297, 298, 299]) {
      aligned[row] = 1;
    }
    const live = 276;
    // Every live row a candidate, no more: a deleted row left in the count, or one taken out twice, leaves one out.
    const approximate = SignCodeSearch.over(matrix, signCodesOf(matrix), (_, rows) => Math.min(rows, live));
    const exact = exactScan(matrix);
    const unaligned = new Uint8Array(new ArrayBuffer(matrix.count + 1), 1, matrix.count);
    unaligned.set(aligned);
    for (const deleted of [aligned, unaligned]) {
      const query = unit(random, dimension);
      const hits = approximate.topK(query, matrix.count, ranges, deleted);
      assert.equal(hits.length, live);
      assert.deepEqual(hits, exact.topK(query, matrix.count, ranges, deleted));
    }
  });

  it('over more rows than candidates: exact scores, live rows of the ranges only, the best rows of clustered data', () => {
    const random = seededRandom(17);
    const dimension = 384;
    const vectors = clustered(random, 4_000, dimension);
    const matrix = matrixOf(vectors, (i) => (i % 3 === 0 ? 'a' : 'b'), dimension);
    const approximate = SignCodeSearch.over(matrix, signCodesOf(matrix), (k) => 20 * k);
    const exact = exactScan(matrix);
    const deleted = new Uint8Array(matrix.count);
    for (let row = 0; row < matrix.count; row += 5) deleted[row] = 1;
    const ranges = rangesFor(matrix, ['b'], undefined);
    const inRanges = (row: number) => ranges.some(([start, end]: RowRange) => row >= start && row < end);
    let sameFirst = 0;
    for (let q = 0; q < 20; q += 1) {
      // A query near a row of vault b: that row is the exact nearest, unless deleted.
      const query = unit(random, dimension, vectors[3 * q + 1], 0.02);
      const hits = approximate.topK(query, 10, ranges, deleted);
      assert.equal(hits.length, 10);
      for (const hit of hits) {
        assert.equal(hit.score, dotRow(matrix.data, dimension, hit.row, query));
        assert.equal(hit.chunkId, matrix.chunkIds[hit.row]);
        assert.ok(inRanges(hit.row) && deleted[hit.row] !== 1, `row ${hit.row} is live and in the filter`);
      }
      const scores = hits.map((hit) => hit.score);
      assert.deepEqual(
        scores,
        [...scores].sort((a, b) => b - a),
      );
      if (hits[0]?.row === exact.topK(query, 1, ranges, deleted)[0]?.row) sameFirst += 1;
    }
    assert.equal(sameFirst, 20);
  });

  it('takes the candidates nearest by code: with as many candidates as rows asked, the k nearest codes, rescored', () => {
    const random = seededRandom(23);
    const dimension = 128;
    const vectors = clustered(random, 500, dimension);
    const matrix = matrixOf(vectors, () => 'a', dimension);
    const codes = signCodesOf(matrix);
    const search = SignCodeSearch.over(matrix, codes, (k) => k);
    const deleted = new Uint8Array(matrix.count);
    for (let row = 1; row < matrix.count; row += 4) deleted[row] = 1;
    const rowCodes = Array.from({ length: matrix.count }, (_, row) =>
      referenceCode(matrix.data, dimension, matrix.count, row),
    );
    for (let q = 0; q < 5; q += 1) {
      const query = unit(random, dimension);
      const queryCode = new Uint8Array(codeBytesOf(dimension));
      for (let j = 0; j < dimension; j += 1) {
        if ((query[j] as number) > (codes.centre[j] as number)) {
          queryCode[j >> 3] = (queryCode[j >> 3] as number) | (1 << (j & 7));
        }
      }
      // Nearest codes first, ties in row order: the first 25 live rows.
      const expectedRows = rowCodes
        .map((code, row) => ({ row, distance: referenceDistance(queryCode, code) }))
        .filter(({ row }) => deleted[row] !== 1)
        .sort((a, b) => a.distance - b.distance || a.row - b.row)
        .slice(0, 25)
        .map(({ row }) => row)
        .sort((a, b) => a - b);
      const rows = search
        .topK(query, 25, [[0, matrix.count]], deleted)
        .map((hit) => hit.row)
        .sort((a, b) => a - b);
      assert.deepEqual(rows, expectedRows);
    }
  });
});
