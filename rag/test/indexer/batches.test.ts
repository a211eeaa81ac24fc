import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planBatches } from '../../src/indexer/batches.js';

describe('planBatches', () => {
  it('groups inputs of similar length, longest first, keeping every index once', () => {
    assert.deepEqual(planBatches([5, 300, 7, 290, 6], 2), [[1, 3], [2, 4], [0]]);
    assert.deepEqual(planBatches([], 8), []);
  });
});
