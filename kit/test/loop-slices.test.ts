import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LoopSlices, runSteps, type Steps } from '../src/loop-slices.js';

/** Steps that each move a fake clock by `stepMs` and record what ran; returns how many ran. */
function* timedSteps(count: number, clock: { nowMs: number }, stepMs: number, log: string[]): Steps<number> {
  for (let i = 0; i < count; i += 1) {
    clock.nowMs += stepMs;
    log.push(`step ${i}`);
    yield;
  }
  return count;
}

/** Logs every turn the event loop takes until stopped (setImmediate runs only on a new turn). */
function turns(log: string[]): () => void {
  let stopped = false;
  const next = () => {
    if (stopped) return;
    log.push('turn');
    setImmediate(next);
  };
  setImmediate(next);
  return () => {
    stopped = true;
  };
}

describe('LoopSlices', () => {
  it('gives the event loop a turn each time a slice is used up, and returns what the steps return', async () => {
    const clock = { nowMs: 0 };
    const log: string[] = [];
    const stop = turns(log);
    const result = await new LoopSlices(10, () => clock.nowMs).run(timedSteps(7, clock, 4, log));
    stop();
    assert.equal(result, 7);
    // 4 ms a step, 10 ms a slice: a turn after the third step of each slice.
    const steps = log.slice(0, log.lastIndexOf('step 6') + 1);
    assert.deepEqual(steps, ['step 0', 'step 1', 'step 2', 'turn', 'step 3', 'step 4', 'step 5', 'turn', 'step 6']);
  });

  it('with slices of 0 ms gives a turn after every step', async () => {
    const clock = { nowMs: 0 };
    const log: string[] = [];
    const stop = turns(log);
    await new LoopSlices(0, () => clock.nowMs).run(timedSteps(3, clock, 0, log));
    stop();
    assert.deepEqual(log.slice(0, 5), ['step 0', 'turn', 'step 1', 'turn', 'step 2']);
  });

  it('runSteps runs the steps to the end at once, without a turn', () => {
    const clock = { nowMs: 0 };
    const log: string[] = [];
    const stop = turns(log);
    assert.equal(runSteps(timedSteps(3, clock, 50, log)), 3);
    stop();
    assert.deepEqual(log, ['step 0', 'step 1', 'step 2']);
  });
});
