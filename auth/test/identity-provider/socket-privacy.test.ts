import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { lstat, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { bindPrivately, prepareSocketDir } from '../../src/identity-provider/socket-dir.js';
import { startProvider, tempSocketDir } from '../support/provider-fixtures.js';

/** Another user to connect as: nobody, where this process may switch to it (it runs as root). */
const OTHER_UID = 65_534;
const canSwitchUser = process.getuid?.() === 0;

/** A directory every user may traverse (0755 all the way from the temp dir), so only modes decide. */
function traversableDir(t: TestContext): string {
  const base = mkdtempSync(join(tmpdir(), 'notegate-idp-open-'));
  t.after(() => rmSync(base, { recursive: true, force: true }));
  chmodSync(base, 0o755);
  const dir = join(base, 'sockets');
  mkdirSync(dir, { mode: 0o755 });
  chmodSync(dir, 0o755);
  return dir;
}

describe('socket directory checks', () => {
  for (const mode of [0o777, 0o770, 0o757, 0o1777]) {
    const shown = (mode & 0o777).toString(8).padStart(4, '0');
    it(`refuses an existing directory of mode ${mode.toString(8)}, naming it`, async (t) => {
      const dir = await tempSocketDir(t);
      mkdirSync(dir);
      chmodSync(dir, mode);
      await assert.rejects(prepareSocketDir(dir), {
        name: 'UsageError',
        message: `--socket-dir ${dir}: is writable by group or others (mode ${shown}); remove their write permission (chmod go-w)`,
      });
      await assert.rejects(startProvider(t, { socketDir: dir }), /is writable by group or others/);
    });
  }

  it('accepts a directory others may only read and traverse (0755)', async (t) => {
    const dir = traversableDir(t);
    assert.equal(await prepareSocketDir(dir), dir);
  });

  it('refuses a directory owned by another user', { skip: !canSwitchUser && 'needs root to chown' }, async (t) => {
    const dir = traversableDir(t);
    chownSync(dir, OTHER_UID, OTHER_UID);
    await assert.rejects(prepareSocketDir(dir), {
      message: `--socket-dir ${dir}: is owned by uid ${OTHER_UID}, neither this user (uid 0) nor root; use a directory of your own`,
    });
  });
});

describe('binding a socket privately', () => {
  it('binds in a fresh 0700 directory, makes the socket 0600 there, then renames it into place', async (t) => {
    const dir = traversableDir(t);
    const path = join(dir, 'agent.sock');
    const server = createServer();
    t.after(() => server.close());
    const previous = process.umask(0);
    try {
      await bindPrivately(path, async (stagingPath) => {
        const staging = statSync(dirname(stagingPath));
        assert.equal(dirname(dirname(stagingPath)), dir);
        assert.equal(staging.mode & 0o777, 0o700, 'only we can reach the socket while its mode is the umask’s');
        assert.equal(staging.uid, process.getuid?.());
        await assert.rejects(lstat(path), { code: 'ENOENT' }, 'nothing at the final path yet');
        server.listen(stagingPath);
        await once(server, 'listening');
        assert.equal(statSync(stagingPath).mode & 0o777, 0o777, 'umask 000: the socket is born world-writable');
      });
    } finally {
      process.umask(previous);
    }
    assert.equal((await stat(path)).mode & 0o777, 0o600);
    assert.deepEqual(readdirSync(dir), ['agent.sock'], 'the staging directory is gone');
  });

  it('never lets another user connect while the provider starts, even under umask 000 in a 0755 directory', {
    skip: !canSwitchUser && 'needs root to run a probe as another user',
  }, async (t) => {
    const dir = traversableDir(t);
    const target = join(dir, 'agent.sock');
    // The other user tries to connect every millisecond until told to stop, then prints its counts.
    const probe = spawn(
      process.execPath,
      [
        '-e',
        `const net = require('node:net');
           let connected = 0, refused = 0, stop = false;
           process.stdin.on('data', () => { stop = true; });
           const attempt = () => {
             if (stop) return void process.stdout.write(JSON.stringify({ connected, refused }), () => process.exit(0));
             const s = net.connect(process.argv[1]);
             s.once('connect', () => { connected++; s.destroy(); setTimeout(attempt, 1); });
             s.once('error', (e) => { if (e.code === 'EACCES') refused++; setTimeout(attempt, 1); });
           };
           attempt();`,
        target,
      ],
      { uid: OTHER_UID, gid: OTHER_UID, stdio: ['pipe', 'pipe', 'inherit'] },
    );
    t.after(() => probe.kill('SIGKILL'));
    let output = '';
    probe.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const previous = process.umask(0);
    try {
      await startProvider(t, { socketDir: dir });
    } finally {
      process.umask(previous);
    }
    // A while after start-up too, so the probe meets the socket in its final place.
    await new Promise((resolve) => setTimeout(resolve, 200));
    probe.stdin.write('stop\n');
    await once(probe, 'exit');
    const counts = JSON.parse(output) as { connected: number; refused: number };
    assert.equal(counts.connected, 0, 'the other user never connected');
    assert.ok(counts.refused > 0, 'the other user met the socket and was refused (EACCES)');
  });
});
