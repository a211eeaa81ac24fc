import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runSteps } from '@notegate/kit';
import { planDelta } from '../../src/snapshot/delta-plan.js';
import { chooseMerge, levelOf } from '../../src/snapshot/merge-policy.js';
import type { ChunkChange } from '../../src/store/change-log.js';

const size = (rows: number, deleted = 0) => ({ rows, deleted });
const small = (count: number) => Array.from({ length: count }, () => size(3));

describe('the merge policy', () => {
  const table: readonly (readonly [string, readonly { rows: number; deleted: number }[], number[] | undefined])[] = [
    ['nothing to merge in an empty set', [], undefined],
    ['a loaded index and seven small commits: nothing yet', [size(100_000), ...small(7)], undefined],
    ['the eighth small commit: the eight are merged', [size(100_000), ...small(8)], [1, 2, 3, 4, 5, 6, 7, 8]],
    [
      'two full levels: the lower one first',
      [...Array.from({ length: 8 }, () => size(300)), ...small(8)],
      [8, 9, 10, 11, 12, 13, 14, 15],
    ],
    [
      'a level by live rows: deleted rows do not count',
      [size(300, 50), ...small(7), size(2000)],
      [0, 1, 2, 3, 4, 5, 6, 7],
    ],
    ['a tenth of the rows deleted: not yet', [size(900, 100), size(100)], undefined],
    ['more than a tenth deleted: the segment holding most of them', [size(100, 5), size(1000, 150), size(50)], [1]],
  ];
  for (const [label, sizes, expected] of table) {
    it(label, () => assert.deepEqual(chooseMerge(sizes), expected));
  }

  it('puts segments into levels eight times apart above 256 live rows', () => {
    assert.deepEqual([0, 255, 256, 2047, 2048, 16_383, 16_384, 131_072].map(levelOf), [0, 0, 1, 1, 2, 2, 3, 4]);
  });
});

describe('the delta between two states', () => {
  // Chunks 1 and 2 are in the earlier state.
  const live = new Map([
    [1, { segment: 0, row: 4 }],
    [2, { segment: 1, row: 0 }],
  ]);
  const change = (entry: string, seq: number): ChunkChange => ({
    seq,
    chunkId: Number(entry.slice(1)),
    added: entry.startsWith('+'),
  });
  const plan = (entries: string) => runSteps(planDelta(entries.split(' ').map(change), (id) => live.get(id)));
  const table: readonly (readonly [string, string, unknown])[] = [
    ['a chunk added', '+3', { removed: [], added: [3], transient: 0 }],
    [
      'a chunk removed, where it was',
      '-1',
      { removed: [{ chunkId: 1, at: { segment: 0, row: 4 } }], added: [], transient: 0 },
    ],
    [
      'a file replaced: its chunk removed, a new one added',
      '-2 +3',
      { removed: [{ chunkId: 2, at: { segment: 1, row: 0 } }], added: [3], transient: 0 },
    ],
    [
      'an id given out again',
      '-1 +1',
      { removed: [{ chunkId: 1, at: { segment: 0, row: 4 } }], added: [1], transient: 0 },
    ],
    ['added and removed in between: in neither state', '+3 +4 -3', { removed: [], added: [4], transient: 1 }],
  ];
  for (const [label, entries, expected] of table) {
    it(label, () => assert.deepEqual(plan(entries), { ok: true, plan: expected }));
  }

  const refusals: readonly (readonly [string, string, string])[] = [
    ['adding a chunk the earlier state holds', '+1', 'the change log adds chunk 1 already there'],
    ['removing a chunk it does not hold', '-3', 'the change log removes chunk 3 not there'],
    ['removing one twice', '-1 -1', 'the change log removes chunk 1 not there'],
  ];
  for (const [label, entries, reason] of refusals) {
    it(`refuses a log that does not describe the earlier state: ${label}`, () =>
      assert.deepEqual(plan(entries), { ok: false, reason }));
  }

  it('plans a large commit in steps, giving a server turns between them (docs/retrieval.md#index-runs)', () => {
    const changes = Array.from({ length: 1_000 }, (_, i) => change(`+${100 + i}`, i));
    const steps = planDelta(changes, (id) => live.get(id));
    let turns = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) turns += 1;
    assert.ok(turns >= 3, `${turns} turns`);
    assert.equal(step.value.ok && step.value.plan.added.length, 1_000);
  });
});
