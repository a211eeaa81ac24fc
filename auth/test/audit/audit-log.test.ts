import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { firstTerminalControl } from '@notegate/kit';
import { AuditLog, fileSink, unverifiedSpiffeId } from '../../src/audit/audit-log.js';
import { runNotegate } from '../support/cli-process.js';

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

  it('writes client-chosen text with its control and bidirectional characters as JSON escapes', () => {
    const lines: string[] = [];
    const log = new AuditLog((line) => lines.push(line));
    const sub = 'unverified:spiffe://example.org/\x1b]0;owned\x07\u009b2J\u202e\x7f';
    log.record({ component: 'authz', spiffeId: sub, tool: null, decision: 'deny', reason: 'x' });
    const [line = ''] = lines;
    assert.equal(firstTerminalControl(line.trimEnd()), undefined, line);
    assert.equal((JSON.parse(line) as Record<string, unknown>).spiffe_id, sub);
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
    assert.equal(unverifiedSpiffeId('x'.repeat(300)), `unverified:${'x'.repeat(128)}…`, 'the client chose it: clipped');
  });
});

describe('the --audit-log file', () => {
  const workspace = (t: TestContext) => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-file-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    return dir;
  };
  const record = (sink: ReturnType<typeof fileSink>) => {
    new AuditLog(sink.sink).record({ component: 'authz', spiffeId: null, tool: null, decision: 'deny', reason: 'r' });
    sink.close();
  };

  it('is created 0600 whatever the umask', (t) => {
    const path = join(workspace(t), 'audit.log');
    const previous = process.umask(0);
    try {
      record(fileSink(path));
    } finally {
      process.umask(previous);
    }
    assert.equal(statSync(path).mode & 0o777, 0o600);
  });

  it('tightens an existing file readable by others to 0600 and appends to it', (t) => {
    const path = join(workspace(t), 'audit.log');
    writeFileSync(path, 'earlier line\n', { mode: 0o644 });
    chmodSync(path, 0o644);
    record(fileSink(path));
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.match(readFileSync(path, 'utf8'), /^earlier line\n\{"timestamp"/);
  });

  it('refuses a symbolic link, even to a file of ours, and writes nothing through it', (t) => {
    const dir = workspace(t);
    const target = join(dir, 'elsewhere.log');
    writeFileSync(target, '', { mode: 0o600 });
    const link = join(dir, 'audit.log');
    symlinkSync(target, link);
    assert.throws(() => fileSink(link), {
      name: 'UsageError',
      message: `--audit-log: ${link} is a symbolic link; name the file itself`,
    });
    assert.equal(readFileSync(target, 'utf8'), '');
    const dangling = join(dir, 'dangling.log');
    symlinkSync(join(dir, 'would-be-created.log'), dangling);
    assert.throws(() => fileSink(dangling), /is a symbolic link/);
    assert.throws(() => statSync(join(dir, 'would-be-created.log')), { code: 'ENOENT' });
  });

  for (const mode of [0o666, 0o620, 0o602]) {
    it(`refuses a file of mode ${mode.toString(8)} (writable by group or others), naming it`, (t) => {
      const path = join(workspace(t), 'audit.log');
      writeFileSync(path, '');
      chmodSync(path, mode);
      assert.throws(() => fileSink(path), {
        message: `--audit-log: ${path} is writable by group or others (mode 0${mode.toString(8)}); remove their write permission (chmod go-w)`,
      });
      assert.equal(statSync(path).mode & 0o777, mode, 'left as it was');
    });
  }

  it('writes to a character device as it is, never changing its mode', () => {
    const before = statSync('/dev/null').mode;
    record(fileSink('/dev/null'));
    assert.equal(statSync('/dev/null').mode, before);
  });

  it('refuses what is not a regular file: a directory, a FIFO', (t) => {
    const dir = workspace(t);
    assert.throws(() => fileSink(dir), /cannot open .* for appending \(EISDIR\)/);
    const fifo = join(dir, 'audit.fifo');
    execFileSync('mkfifo', ['-m', '0600', fifo]);
    assert.throws(() => fileSink(fifo), /--audit-log: cannot open .*audit\.fifo for appending \(ENXIO\)/);
  });

  it('refuses a file owned by another user', { skip: process.getuid?.() !== 0 && 'needs root' }, (t) => {
    const path = join(workspace(t), 'audit.log');
    writeFileSync(path, '', { mode: 0o600 });
    chownSync(path, 65_534, 65_534);
    assert.throws(() => fileSink(path), {
      message: new RegExp(`^--audit-log: ${path} is owned by uid 65534, neither this user \\(uid \\d+\\) nor root$`),
    });
  });

  it('stops a server from starting on a symlinked --audit-log, naming it (exit 2)', async (t) => {
    const dir = workspace(t);
    const link = join(dir, 'audit.log');
    symlinkSync(join(dir, 'target.log'), link);
    const { code, stderr } = await runNotegate([
      'notes-server',
      '--resource',
      'http://127.0.0.1:9/mcp',
      '--issuer',
      'http://127.0.0.1:9/issuer',
      '--jwks-uri',
      'http://127.0.0.1:9/jwks.json',
      '--notes-dir',
      join(dir, 'notes'),
      '--audit-log',
      link,
    ]);
    assert.equal(code, 2);
    assert.equal(
      stderr.split('\n')[0],
      `notegate notes-server: --audit-log: ${link} is a symbolic link; name the file itself`,
    );
  });
});
