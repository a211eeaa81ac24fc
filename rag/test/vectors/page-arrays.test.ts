import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import { pageBuffer, pageCopy, pageFloat32, pageUint16 } from '../../src/vectors/page-arrays.js';

const PAGE_BYTES = 65_536;

describe('page arrays', () => {
  it('are as long as asked, zero, and shared, in whole pages from one page up', () => {
    for (const [length, bufferBytes] of [
      [0, 0],
      [10, 40],
      [PAGE_BYTES / 4 - 1, PAGE_BYTES - 4],
      [PAGE_BYTES / 4, PAGE_BYTES],
      [PAGE_BYTES / 4 + 1, 2 * PAGE_BYTES],
      [1_000_000, 62 * PAGE_BYTES],
    ] as const) {
      const array = pageFloat32(length);
      assert.equal(array.length, length);
      assert.equal(array.buffer.byteLength, bufferBytes, `${length} floats`);
      assert.ok(array.buffer instanceof SharedArrayBuffer);
      assert.ok(array.every((x) => x === 0));
    }
  });

  it('can be posted to another thread without a copy', () => {
    const array = pageUint16(PAGE_BYTES);
    const { port1, port2 } = new MessageChannel();
    try {
      port1.postMessage(array);
      const received: unknown = receiveMessageOnPort(port2)?.message;
      assert.ok(received instanceof Uint16Array);
      array[5] = 7;
      assert.equal(received[5], 7);
    } finally {
      port1.close();
    }
  });

  it('copies an array into page memory', () => {
    const source = new Uint8Array(PAGE_BYTES + 3).map((_, i) => i % 2);
    const copy = pageCopy(source);
    assert.deepEqual(copy, source);
    assert.notEqual(copy.buffer, source.buffer);
    assert.equal(copy.buffer.byteLength, 2 * PAGE_BYTES);
    assert.equal(pageBuffer(3).byteLength, 3);
  });
});
