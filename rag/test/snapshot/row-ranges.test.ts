import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { intersectRanges, rangesOfRows } from '../../src/snapshot/row-ranges.js';

describe('row ranges', () => {
  it('collapses rows into the fewest ascending ranges', () => {
    assert.deepEqual(rangesOfRows([7, 1, 2, 3, 9, 8]), [
      [1, 4],
      [7, 10],
    ]);
    assert.deepEqual(rangesOfRows([]), []);
  });

  it('intersects two lists of ranges', () => {
    const cases: readonly (readonly [[number, number][], [number, number][], [number, number][]])[] = [
      [
        [[0, 10]],
        [
          [2, 4],
          [6, 12],
        ],
        [
          [2, 4],
          [6, 10],
        ],
      ],
      [
        [
          [0, 2],
          [5, 7],
        ],
        [[2, 5]],
        [],
      ],
      [
        [
          [0, 3],
          [4, 8],
        ],
        [[1, 6]],
        [
          [1, 3],
          [4, 6],
        ],
      ],
      [[], [[0, 9]], []],
    ];
    for (const [a, b, both] of cases) {
      assert.deepEqual(intersectRanges(a, b), both);
      assert.deepEqual(intersectRanges(b, a), both);
    }
  });
});
