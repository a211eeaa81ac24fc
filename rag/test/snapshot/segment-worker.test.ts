import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { seededRandom } from '@notegate/kit/testing';
import { NO_MODEL } from '../../src/config/models.js';
import type { BaseJob } from '../../src/snapshot/segment-jobs.js';
import { DEFAULT_VECTOR_BUILD, SegmentWorker, vectorBuildFor } from '../../src/snapshot/segment-worker-client.js';
import { IndexStore } from '../../src/store/index-store.js';
import { fileRecord, MINILM, model, tempDir } from '../../test-support/fixtures.js';
import { unit } from '../../test-support/vector-matrices.js';

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

/** An index of 12 chunks with vectors, and the job that loads it whole. */
function baseJobWithVectors(t: TestContext): BaseJob {
  const file = path.join(tempDir(t), 'index.sqlite');
  const withVectors = model(MINILM);
  const store = IndexStore.open(file, { model: withVectors, nowMs: 1 });
  const random = seededRandom(9);
  for (let f = 0; f < 4; f += 1) {
    const chunks = [0, 1, 2].map((seq) => ({
      seq,
      heading: '',
      lineStart: seq + 1,
      lineEnd: seq + 1,
      text: `note ${f} part ${seq}`,
      tokenCount: 1,
      vector: unit(random, withVectors.dimension),
    }));
    store.replaceFile(fileRecord(`n${f}.md`), chunks, 1);
  }
  store.finishRun('', '{}', 2);
  store.close();
  return { kind: 'base', file, model: withVectors, words: false };
}

describe('segment worker threads', () => {
  it('builds sign codes for segments of the rows its vector build names, int8 rows below, and none with exact', async (t) => {
    const job = baseJobWithVectors(t);
    assert.equal(vectorBuildFor('auto'), DEFAULT_VECTOR_BUILD);
    const table = [
      { vectors: { approximateFromRows: 12 }, codes: true },
      { vectors: { approximateFromRows: 13 }, codes: false },
      { vectors: vectorBuildFor('exact'), codes: false },
      { vectors: DEFAULT_VECTOR_BUILD, codes: false },
    ];
    for (const { vectors, codes } of table) {
      const worker = new SegmentWorker({ vectors });
      t.after(() => worker.close());
      const { parts } = await worker.run(job);
      assert.equal(parts.matrix.count, 12);
      assert.equal(parts.codes !== undefined, codes, JSON.stringify(vectors));
      assert.equal(parts.int8 !== undefined, !codes, JSON.stringify(vectors));
    }
  });

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
