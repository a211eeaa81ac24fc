import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TurnQueue } from '../../src/search/turn-queue.js';

describe('TurnQueue', () => {
  it('runs jobs in order, one per event-loop turn, with other work between them', async () => {
    const queue = new TurnQueue();
    const order: string[] = [];
    const jobs = [1, 2, 3].map((n) =>
      queue.run(() => {
        order.push(`job ${n}`);
        setImmediate(() => order.push(`after job ${n}`));
        return n;
      }),
    );
    assert.deepEqual(await Promise.all(jobs), [1, 2, 3]);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(order, ['job 1', 'after job 1', 'job 2', 'after job 2', 'job 3', 'after job 3']);
  });

  it('passes a job failure to its caller only', async () => {
    const queue = new TurnQueue();
    const failed = queue.run(() => {
      throw new Error('boom');
    });
    const next = queue.run(() => 'still runs');
    await assert.rejects(failed, /boom/);
    assert.equal(await next, 'still runs');
  });
});
