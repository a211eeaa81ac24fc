/**
 * A process that makes and drops segments the way a server does over many
 * commits, for the memory test: argv: <rounds>. Each round a worker thread
 * builds a segment of a random size (up to a few MiB of arrays) and, once five
 * are held, the merging thread merges the three oldest; the oldest segments
 * are dropped beyond 40 MB. Prints one JSON line: how much the anonymous
 * resident memory grew from the start (after a full collection) and the bytes
 * of the segments held at the end.
 */
import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { seededRandom } from '@notegate/kit/testing';
import { Segment } from '../src/snapshot/segment.js';
import { SegmentWorker } from '../src/snapshot/segment-worker-client.js';
import type { VectorMatrix } from '../src/store/load-vectors.js';

const DIMENSION = 64;
const HELD_BYTES = 40e6;
const [rounds = '60'] = process.argv.slice(2);

setFlagsFromString('--expose-gc');
const gc: unknown = runInNewContext('gc');
if (typeof gc !== 'function') throw new Error('no gc() in this process');
const collect = async () => {
  for (let i = 0; i < 3; i += 1) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};
const anonymousBytes = () =>
  Number(/^RssAnon:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]) * 1024;

const random = seededRandom(7);
let nextChunkId = 1;
/** Rows made in this thread, as the reader of a commit's chunks makes them. */
function matrixOf(count: number): VectorMatrix {
  const data = new Float32Array(new SharedArrayBuffer(count * DIMENSION * 4));
  for (let i = 0; i < data.length; i += 7) data[i] = random() - 0.5;
  const chunkIds = new Float64Array(new SharedArrayBuffer(count * 8));
  for (let row = 0; row < count; row += 1) chunkIds[row] = nextChunkId++;
  return {
    dimension: DIMENSION,
    count,
    data,
    chunkIds,
    partitions: [{ vault: 'v', namespace: '', start: 0, end: count }],
  };
}

const builder = new SegmentWorker({ stopWhenIdleAfter: ['delta'] });
const merger = new SegmentWorker({ stopWhenIdleAfter: ['merge'] });
await collect();
const startBytes = anonymousBytes();
let held: Segment[] = [];
for (let round = 0; round < Number(rounds); round += 1) {
  const matrix = matrixOf(1000 + Math.floor(random() * 40_000));
  const built = await builder.run({ kind: 'delta', layout: 'words', matrix, texts: undefined, removed: undefined });
  held.push(new Segment(built.parts));
  if (held.length > 4) {
    const sources = held.slice(0, 3);
    const merged = await merger.run({
      kind: 'merge',
      sources: sources.map((segment) => ({ parts: segment.parts, deleted: undefined })),
    });
    held = [new Segment(merged.parts), ...held.slice(3)];
    while (held.reduce((sum, segment) => sum + segment.byteLength, 0) > HELD_BYTES) held = held.slice(1);
  }
}
await builder.close();
await merger.close();
await collect();
const heldBytes = held.reduce((sum, segment) => sum + segment.byteLength, 0);
process.stdout.write(`${JSON.stringify({ grownBytes: anonymousBytes() - startBytes, heldBytes })}\n`);
