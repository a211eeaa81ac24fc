import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { spawnNode } from '../../test-support/child.js';

const MIB = 2 ** 20;
/**
 * What a process may keep beyond the segments it holds after 60 rounds: the
 * threads' heaps and the allocator's own. With the segments' arrays from
 * malloc it kept about 95 MiB (in the arenas of the threads that made them);
 * from mapped pages, about 38 (docs/retrieval.md#memory-of-segments).
 */
const KEPT_BEYOND_SEGMENTS_BYTES = 64 * MIB;

describe('memory of segments made and dropped', () => {
  it('gives the memory of dropped segments back to the system', async (t) => {
    const script = fileURLToPath(new URL('../../test-support/segment-churn.js', import.meta.url));
    const child = spawnNode(t, script, ['60']);
    const line = await child.waitForLine(/^\{/, 300_000);
    const { grownBytes, heldBytes }: { grownBytes: unknown; heldBytes: unknown } = JSON.parse(line);
    assert.equal(typeof grownBytes, 'number');
    assert.equal(typeof heldBytes, 'number');
    assert.ok(Number(heldBytes) > 10 * MIB, `the process holds segments at the end (${heldBytes} bytes)`);
    assert.ok(
      Number(grownBytes) < Number(heldBytes) + KEPT_BEYOND_SEGMENTS_BYTES,
      `anonymous memory grew by ${(Number(grownBytes) / MIB).toFixed(1)} MiB, holding ${(Number(heldBytes) / MIB).toFixed(1)} MiB of segments`,
    );
  });
});
