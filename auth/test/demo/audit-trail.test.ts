import assert from 'node:assert/strict';
import { appendFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { AuditTrail } from '../../src/demo/audit-trail.js';

const line = (timestamp: string, component: string) =>
  `${JSON.stringify({ timestamp, component, spiffe_id: null, tool: null, decision: 'allow', reason: 'r' })}\n`;

describe('AuditTrail', () => {
  it('returns the lines appended after a mark, from every file, in time order; missing files are empty', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'audit-trail-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const [a, b] = [join(dir, 'a.log'), join(dir, 'b.log')];
    await appendFile(a, line('2026-11-22T08:00:00.000Z', 'before'));
    const trail = new AuditTrail([a, b, join(dir, 'never-written.log')]);
    const mark = await trail.mark();
    await appendFile(b, line('2026-11-22T08:00:02.000Z', 'b'));
    await appendFile(a, line('2026-11-22T08:00:01.000Z', 'a'));
    assert.deepEqual(
      (await trail.since(mark)).map((entry) => entry.component),
      ['a', 'b'],
    );
    assert.deepEqual(await trail.since(await trail.mark()), []);
  });
});
