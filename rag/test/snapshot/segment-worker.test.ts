import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { NO_MODEL } from '../../src/config/models.js';
import type { BaseJob } from '../../src/snapshot/segment-jobs.js';
import { SegmentWorker } from '../../src/snapshot/segment-worker-client.js';
import { IndexStore } from '../../src/store/index-store.js';
import { fileRecord, tempDir } from '../../test-support/fixtures.js';

/** A lexical-only index of two notes, and the job that loads it whole. */
function baseJob(t: TestContext): BaseJob {
  const file = path.join(tempDir(t), 'index.sqlite');
  const store = IndexStore.open(file, { model: NO_MODEL, nowMs: 1 });
  for (const name of ['a', 'b']) {
    const chunk = { seq: 0, heading: '', lineStart: 1, lineEnd: 1, text: `note ${name} about keys`, tokenCount: 1 };
    store.replaceFile(fileRecord(`${name}.md`), [{ ...chunk, vector: new Float32Array() }], 1);
  }
  store.finishRun('', '{}', 2);
  store.close();
  return { kind: 'base', file, model: NO_MODEL, words: true };
}

describe('segment worker threads', () => {
  it('stops its thread once idle after a job of the kinds named, and starts a new one for the next job', async (t) => {
    const job = baseJob(t);
    const worker = new SegmentWorker({ stopWhenIdleAfter: ['base'] });
    t.after(() => worker.close());
    const first = await worker.run(job);
    assert.equal(first.parts.matrix.count, 2);
    assert.equal(worker.running, false);
    // Two at once: the thread runs both, and stops after the second.
    const both = await Promise.all([worker.run(job), worker.run(job)]);
    assert.deepEqual(
      both.map((reply) => reply.parts.matrix.count),
      [2, 2],
    );
    assert.equal(worker.running, false);
  });

  it('never fails a job started while the thread before it is stopping', async (t) => {
    const job = baseJob(t);
    const worker = new SegmentWorker({ stopWhenIdleAfter: ['base'] });
    t.after(() => worker.close());
    // Each job starts as the one before settles, before the stopped thread has exited.
    let reply = await worker.run(job);
    for (let i = 0; i < 5; i += 1) reply = await worker.run(job);
    assert.equal(reply.parts.matrix.count, 2);
    assert.equal(worker.running, false);
  });

  it('keeps its thread between jobs of other kinds until closed', async (t) => {
    const job = baseJob(t);
    const worker = new SegmentWorker({ stopWhenIdleAfter: ['merge'] });
    t.after(() => worker.close());
    await worker.run(job);
    assert.equal(worker.running, true);
    await worker.close();
    assert.equal(worker.running, false);
  });
});
