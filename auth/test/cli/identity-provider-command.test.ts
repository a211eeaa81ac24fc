import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { unwrapHelp, waitFor } from '@notegate/kit/testing';
import { parseSvidLogLine } from '../../src/identity-provider/svid-log-line.js';
import { runNotegate, startNotegate } from '../support/cli-process.js';
import { fastClient, heldKids, streamedBundles, tempSocketDir } from '../support/provider-fixtures.js';

const WORKLOADS = `trust_domain: example.org
workloads:
  - name: agent
    spiffe_id: spiffe://example.org/agent
`;

const run = (args: string[]) => runNotegate(['identity-provider', ...args]);

describe('notegate identity-provider', () => {
  it('documents every option with its default under --help', async () => {
    const { code, stdout } = await run(['--help']);
    assert.equal(code, 0);
    for (const line of [
      /--workloads FILE .*\(required\)/,
      /--socket-dir DIR .*\(required\)/,
      /--svid-ttl SECONDS .*\(default: 300\)/,
      /--key-type ec-p256\|rsa-2048 .*\(default: ec-p256\)/,
      /--log-svids .*\(default: off\)/,
      /--help/,
    ]) {
      assert.match(unwrapHelp(stdout), line);
    }
  });

  it('exits 2 naming the entry of a malformed workloads file', async (t) => {
    const dir = await tempSocketDir(t);
    const file = join(dir, '..', 'bad.yaml');
    await writeFile(file, `${WORKLOADS}  - name: Agent\n    spiffe_id: spiffe://example.org/two\n`);
    const { code, stderr } = await run(['--workloads', file, '--socket-dir', dir]);
    assert.equal(code, 2);
    assert.match(stderr, /workloads\[1\]\.name: 'Agent'/);
  });

  it('exits 2 naming an unusable socket directory and a bad option value', async (t) => {
    const dir = await tempSocketDir(t);
    const file = join(dir, '..', 'workloads.yaml');
    await writeFile(file, WORKLOADS);
    const notADir = await run(['--workloads', file, '--socket-dir', file]);
    assert.equal(notADir.code, 2);
    assert.match(notADir.stderr, /--socket-dir .*workloads\.yaml: exists and is not a directory/);
    const badKey = await run(['--workloads', file, '--socket-dir', dir, '--key-type', 'ed25519']);
    assert.equal(badKey.code, 2);
    assert.match(badKey.stderr, /--key-type: 'ed25519' is not allowed \(allowed: ec-p256, rsa-2048\)/);
    const badTtl = await run(['--workloads', file, '--socket-dir', dir, '--svid-ttl', '0']);
    assert.equal(badTtl.code, 2);
    assert.match(badTtl.stderr, /--svid-ttl/);
  });

  it('listens, rotates on SIGHUP, and removes its sockets on SIGTERM', async (t) => {
    const dir = await tempSocketDir(t);
    const file = join(dir, '..', 'workloads.yaml');
    await writeFile(file, WORKLOADS);
    const { child, output } = await startNotegate(t, ['identity-provider', '--workloads', file, '--socket-dir', dir]);
    assert.equal(output.stdout, `listening on unix://${dir}\n`);

    const client = fastClient(t, join(dir, 'agent.sock'));
    await client.fetchJwtSvid({ audience: 'http://a' });
    const bundles = streamedBundles(t, client);
    await bundles.ready(5_000);
    assert.equal(heldKids(bundles).length, 1);
    child.kill('SIGHUP');
    await waitFor('the rotated bundle', () => heldKids(bundles).length === 2);

    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    assert.equal(code, 0);
    assert.deepEqual(await readdir(dir), []);
  });

  it('--log-svids prints one stderr line per JWT-SVID minted, with the running count, identity and audience', async (t) => {
    const dir = await tempSocketDir(t);
    const file = join(dir, '..', 'workloads.yaml');
    await writeFile(file, WORKLOADS);
    const args = ['identity-provider', '--workloads', file, '--socket-dir', dir, '--log-svids'];
    const { output } = await startNotegate(t, args);
    const client = fastClient(t, join(dir, 'agent.sock'));
    await client.fetchJwtSvid({ audience: 'http://a' });
    await client.fetchJwtSvid({ audience: 'http://b' });
    const minted = await waitFor('two SVID lines', () => {
      const lines = output.stderr.split('\n').flatMap((line) => parseSvidLogLine(line) ?? []);
      return lines.length === 2 && lines;
    });
    assert.deepEqual(minted, [
      { count: 1, spiffeId: 'spiffe://example.org/agent', audience: ['http://a'] },
      { count: 2, spiffeId: 'spiffe://example.org/agent', audience: ['http://b'] },
    ]);
  });
});
