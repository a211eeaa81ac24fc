import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Partition } from '../../src/store/load-vectors.js';
import { mergeMatrices, planRowMerge } from '../../src/vectors/row-merge.js';

function rows(groups: readonly (readonly [string, string, readonly number[]])[]) {
  const partitions: Partition[] = [];
  const ids: number[] = [];
  for (const [vault, namespace, chunkIds] of groups) {
    partitions.push({ vault, namespace, start: ids.length, end: ids.length + chunkIds.length });
    ids.push(...chunkIds);
  }
  return { chunkIds: Float64Array.from(ids), partitions };
}

describe('merging the rows of segments', () => {
  it('keeps the live rows, grouped by vault and namespace and in chunk id order inside a group', () => {
    const first = rows([
      ['a', 'x', [1, 4, 6]],
      ['b', '', [2]],
    ]);
    const second = rows([
      ['a', 'x', [3, 5]],
      ['c', 'z', [7]],
    ]);
    const deleted = Uint8Array.from([0, 0, 1, 0]);
    const plan = planRowMerge([
      { rows: first, deleted },
      { rows: second, deleted: undefined },
    ]);
    assert.deepEqual(Array.from(plan.chunkIds), [1, 3, 4, 5, 2, 7]);
    assert.deepEqual(plan.partitions, [
      { vault: 'a', namespace: 'x', start: 0, end: 4 },
      { vault: 'b', namespace: '', start: 4, end: 5 },
      { vault: 'c', namespace: 'z', start: 5, end: 6 },
    ]);
    assert.deepEqual(
      plan.mergedRowOf.map((map) => Array.from(map)),
      [
        [0, 2, -1, 4],
        [1, 3, 5],
      ],
      'a deleted row is left out',
    );
    assert.deepEqual(
      [Array.from(plan.sourceOf), Array.from(plan.rowOf)],
      [
        [0, 1, 0, 1, 0, 1],
        [0, 0, 1, 1, 3, 2],
      ],
    );
    const matrix = (source: typeof first, base: number) => ({
      ...source,
      dimension: 2,
      count: source.chunkIds.length,
      data: Float32Array.from(Array.from(source.chunkIds).flatMap((id) => [id, base])),
    });
    const merged = mergeMatrices([matrix(first, 10), matrix(second, 20)], plan);
    assert.deepEqual(
      Array.from(merged.data),
      [1, 10, 3, 20, 4, 10, 5, 20, 2, 10, 7, 20],
      'each row carries its vector',
    );
  });
});
