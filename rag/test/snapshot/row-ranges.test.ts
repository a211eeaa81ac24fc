import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rangesHolding, rangesOfRows } from '../../src/snapshot/row-ranges.js';

describe('row ranges', () => {
  it('collapses rows into the fewest ascending ranges', () => {
    assert.deepEqual(rangesOfRows([7, 1, 2, 3, 9, 8]), [
      [1, 4],
      [7, 10],
    ]);
    assert.deepEqual(rangesOfRows([]), []);
  });

  it('keeps the rows of the ranges that hold a chosen chunk', () => {
    // Row r holds chunk 100 + r.
    const chunkIds = Array.from({ length: 12 }, (_, row) => 100 + row);
    const cases: readonly (readonly [[number, number][], number[], [number, number][]])[] = [
      [
        [[0, 12]],
        [102, 103, 106, 107, 108],
        [
          [2, 4],
          [6, 9],
        ],
      ],
      [
        [
          [0, 2],
          [5, 7],
        ],
        [102, 103, 104],
        [],
      ],
      [
        [
          [0, 3],
          [4, 8],
        ],
        [101, 102, 103, 104, 105],
        [
          [1, 3],
          [4, 6],
        ],
      ],
      [[[0, 12]], [], []],
      [[], [100, 101], []],
      [[[0, 12]], [999], []],
    ];
    for (const [ranges, chosen, held] of cases) {
      assert.deepEqual(rangesHolding(chunkIds, ranges, new Set(chosen)), held);
    }
  });
});
