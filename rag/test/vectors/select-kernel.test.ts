import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { seededRandom } from '@notegate/kit/testing';
import { kernelMemory } from '../../src/vectors/kernel-memory.js';
import { instantiateSelect, SELECT_BLOCK, SELECT_HEADER_BYTES } from '../../src/vectors/select-kernel.js';

/** The distances start two bytes past an aligned address: the kernel's loads need no alignment. */
const DISTANCES_AT = 2;
const SELECTED_AT = 65_536;

/** Every row at most `cut`, listed by calling the kernel from where it stopped until all `count` rows are gone through. */
function selectAll(distances: Uint16Array, cut: number, capacity: number): { rows: number[]; calls: number } {
  const memory = kernelMemory(SELECTED_AT + SELECT_HEADER_BYTES + capacity * 4);
  new Uint16Array(memory.buffer, DISTANCES_AT, distances.length).set(distances);
  const select = instantiateSelect(memory);
  const header = new Uint32Array(memory.buffer, SELECTED_AT, 2);
  const listedRows = new Uint32Array(memory.buffer, SELECTED_AT + SELECT_HEADER_BYTES, capacity);
  const rows: number[] = [];
  let calls = 0;
  for (let from = 0; from < distances.length || calls === 0; ) {
    select(DISTANCES_AT + from * 2, distances.length - from, cut, SELECTED_AT, capacity);
    calls += 1;
    const [listed = 0, gone = 0] = header;
    assert.ok(listed <= capacity, 'never more rows than places');
    assert.equal(gone % SELECT_BLOCK, 0, 'whole blocks');
    if (from + gone < distances.length)
      assert.ok(capacity - listed < SELECT_BLOCK, 'stops early only when a block might not fit');
    for (const row of listedRows.subarray(0, listed)) rows.push(from + row);
    from += gone;
  }
  return { rows, calls };
}

describe('select kernel', () => {
  it('lists the rows within the cut, in row order, across calls where the places run out', () => {
    const random = seededRandom(11);
    for (const count of [0, 8, 64, 1_000]) {
      const distances = Uint16Array.from({ length: count }, () => Math.floor(random() * 21));
      for (const cut of [0, 5, 19, 20, 4_096]) {
        const expected = [...distances.keys()].filter((row) => (distances[row] as number) <= cut);
        for (const capacity of [8, 15, 64, 8_192]) {
          const { rows, calls } = selectAll(distances, cut, capacity);
          assert.deepEqual(rows, expected, `count ${count}, cut ${cut}, capacity ${capacity}`);
          if (capacity >= count) assert.equal(calls, 1, 'one call when every row fits');
        }
      }
    }
  });

  it('compares distances as unsigned 16-bit numbers', () => {
    const distances = Uint16Array.from([0, 1, 32_767, 32_768, 65_535, 2, 40_000, 3]);
    assert.deepEqual(selectAll(distances, 32_768, 8).rows, [0, 1, 2, 3, 5, 7]);
    assert.deepEqual(selectAll(distances, 65_535, 8).rows, [0, 1, 2, 3, 4, 5, 6, 7]);
  });
});
