import assert from 'node:assert/strict';
import { chmod, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { describe, it } from 'node:test';
import { spawnNode, waitFor } from '@notegate/kit/testing';
import { spireLayoutTargets } from '../../src/demo/spire-identity.js';
import { decideSpireLayout } from '../../src/identity-provider/spire/layout.js';
import { MAIN } from '../support/cli-process.js';
import { processesMentioning } from '../support/process-checks.js';
import { spireForTests } from '../support/spire.js';

const spire = await spireForTests();

/**
 * A TMPDIR for one demo run: whatever the demo leaves behind shows up in it. Others may enter it
 * (0711), as they may enter /tmp, so that as root the demo can use the uid layout.
 */
async function demoTmp(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'demo-spire-test-'));
  await chmod(dir, 0o711);
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

function startDemo(t: TestContext, tmp: string, ...args: string[]) {
  const env = { ...process.env, TMPDIR: tmp, NO_COLOR: '', NOTEGATE_MODEL_CACHE: join(tmp, 'no-model-cache') };
  return spawnNode(t, [MAIN, 'demo', '--identity', 'spire', '--no-color', ...args], env);
}

describe('SPIRE: notegate demo --identity spire (child processes, real SPIRE 1.15.3)', { skip: spire.skip }, () => {
  it('runs the four scenarios on SPIRE, all PASS, and leaves nothing behind', async (t) => {
    const tmp = await demoTmp(t);
    const expected = await decideSpireLayout('auto', spireLayoutTargets(spire.binaries(), tmp));
    assert.ok(expected.layout);
    const { output, exited } = startDemo(t, tmp);
    assert.equal(await exited, 0, output.stdout + output.stderr);
    assert.match(output.stdout, new RegExp(`^On SPIRE 1\\.15\\.3 \\(.*\\), ${expected.layout} layout: `, 'm'));
    assert.match(output.stdout, /^ {2}SPIRE 1\.15\.3 +server 127\.0\.0\.1:\d+ /m);
    assert.match(output.stdout, /--svid-replay allow-reuse-within-lifetime/);
    for (const title of ['Allowed', 'Insufficient scope', 'Stolen token', 'Untrusted issuer']) {
      assert.match(output.stdout, new RegExp(`^PASS  ${title} \\(`, 'm'));
    }
    assert.doesNotMatch(output.stdout, /FAIL/);
    // The chain on SPIRE SVIDs: authz issued tokens for them (SPIRE mints no jti), notes-a refused the
    // reader's write, notes-b the replayed token, and the refused issuer got nothing.
    assert.match(output.stdout, /authz {15}allow {2}spiffe:\/\/example\.org\/agent\n {16}issued: svid_jti=-/);
    assert.match(output.stdout, /mcp_server:notes-a {2}deny {3}spiffe:\/\/example\.org\/reader {2}notes\.write/);
    assert.match(output.stdout, /mcp_server:notes-b {2}deny {3}spiffe:\/\/example\.org\/agent/);
    assert.match(output.stdout, /untrusted issuer: 0 requests received/);
    const served = /SPIRE agent, JWT-SVIDs handed out: (\d+) before this run, (\d+) after/.exec(output.stdout);
    assert.ok(served && Number(served[1]) > 0 && served[1] === served[2], output.stdout);
    assert.deepEqual(processesMentioning(tmp), []);
    assert.deepEqual(await readdir(tmp), []);
  });

  it('on SIGINT while SPIRE starts, stops it and exits 130, leaving no process or folder', async (t) => {
    const tmp = await demoTmp(t);
    const { child, output, exited } = startDemo(t, tmp, '--spire-layout', 'agent-per-workload');
    await waitFor('SPIRE starting', () => processesMentioning(tmp).some((pid) => pid !== child.pid));
    child.kill('SIGINT');
    assert.equal(await exited, 130, output.stderr);
    assert.doesNotMatch(output.stdout, /━━ 1\/4/);
    assert.deepEqual(processesMentioning(tmp), []);
    assert.deepEqual(await readdir(tmp), []);
  });

  it('refuses --spire-layout uid where it cannot work, naming the option (exit 2)', {
    skip: process.getuid?.() === 0 && 'runs as root',
  }, async (t) => {
    const tmp = await demoTmp(t);
    const { output, exited } = startDemo(t, tmp, '--spire-layout', 'uid');
    assert.equal(await exited, 2);
    assert.match(output.stderr, /--spire-layout uid: the uid layout cannot work here: .*needs root/);
  });
});

describe('notegate demo --identity spire without SPIRE binaries', () => {
  it('exits 2 and says how to get them', async (t) => {
    const tmp = await demoTmp(t);
    const env = { ...process.env, TMPDIR: tmp, NOTEGATE_SPIRE_BIN: join(tmp, 'no-spire') };
    const { output, exited } = spawnNode(t, [MAIN, 'demo', '--identity', 'spire'], env);
    assert.equal(await exited, 2);
    assert.match(
      output.stderr,
      /--identity spire: .*no-spire\/spire-server is missing or not executable; build them with `npm run spire:build`/,
    );
    assert.deepEqual(await readdir(tmp), []);
  });
});
