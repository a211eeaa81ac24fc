import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { AuditLog, fileSink, unverifiedSpiffeId } from '../../src/audit/audit-log.js';

describe('AuditLog', () => {
  it('writes the six fixed fields first, in order, then extras', () => {
    const lines: string[] = [];
    const log = new AuditLog((line) => lines.push(line), { clock: () => Date.UTC(2026, 10, 22, 8, 30, 0, 123) });
    log.record({
      component: 'authz',
      spiffeId: 'spiffe://example.org/agent',
      tool: null,
      decision: 'allow',
      reason: 'svid_jti=abc',
      extra: { resource: 'http://127.0.0.1:8081/mcp', decision: 'ignored' },
    });
    assert.equal(lines.length, 1);
    assert.ok(lines[0]?.endsWith('\n'));
    const parsed = JSON.parse(lines[0] ?? '') as Record<string, unknown>;
    assert.deepEqual(Object.keys(parsed), [
      'timestamp',
      'component',
      'spiffe_id',
      'tool',
      'decision',
      'reason',
      'resource',
    ]);
    assert.equal(parsed.timestamp, '2026-11-22T08:30:00.123Z');
    assert.equal(parsed.decision, 'allow');
  });

  it('survives a failing sink and reports it', () => {
    const reported: unknown[] = [];
    const log = new AuditLog(
      () => {
        throw new Error('disk full');
      },
      { onSinkError: (err) => reported.push(err) },
    );
    log.record({ component: 'authz', spiffeId: null, tool: null, decision: 'deny', reason: 'x' });
    assert.equal(reported.length, 1);
  });

  it('appends whole lines to a file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-'));
    try {
      const path = join(dir, 'audit.log');
      const { sink, close } = fileSink(path);
      const log = new AuditLog(sink);
      for (let i = 0; i < 3; i++)
        log.record({ component: 'authz', spiffeId: null, tool: null, decision: 'deny', reason: `r${i}` });
      close();
      const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
      assert.deepEqual(
        lines.map((l) => (JSON.parse(l) as { reason: string }).reason),
        ['r0', 'r1', 'r2'],
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses an unopenable audit file at start-up, naming the flag', () => {
    assert.throws(() => fileSink('/nonexistent-dir/audit.log'), /--audit-log: cannot open/);
  });

  it('marks unverified subjects', () => {
    assert.equal(unverifiedSpiffeId('spiffe://example.org/a'), 'unverified:spiffe://example.org/a');
    assert.equal(unverifiedSpiffeId(42), null);
  });
});
