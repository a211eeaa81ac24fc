import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { reservePort } from '../../src/http/index.js';
import { runInGroup, tempDir } from '../../src/testing/index.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

/** The first `sh` block under the README's "Workload identity" heading. */
function workloadIdentityBlock(): string {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('\n## Workload identity\n'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(block, 'README.md has a sh block under "## Workload identity"');
  return block;
}

describe("the README's workload-identity block", () => {
  it('runs as written in a clone: check-policy, three servers, a note written and found, the servers stopped', async (t) => {
    // The one change: free ports for 8080 and 8081, so the test never meets another program on them.
    const [issuerPort, notesPort] = [await reservePort(), await reservePort()];
    const block = workloadIdentityBlock()
      .replaceAll('127.0.0.1:8080', `127.0.0.1:${issuerPort}`)
      .replaceAll('127.0.0.1:8081', `127.0.0.1:${notesPort}`);
    // mktemp -d makes $D under TMPDIR, inside the test's folder; the block's own `kill` must end the servers,
    // or their inherited stderr keeps this run from finishing.
    const env = { ...process.env, TMPDIR: tempDir(t, 'notegate-readme-') };
    const run = await runInGroup(t, 'bash', ['-e', '-c', block], env, ROOT);
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /policy\.yaml: valid; trust domain example\.org, 1 grant\n/);
    assert.match(run.stdout, /"created":true/);
    assert.match(run.stdout, /"snippet":"Rotate the signing keys\."/);
    assert.match(run.stderr, /JWT bundle received from unix:\/\/.*\/idp\/authz\.sock/);
    assert.doesNotMatch(run.stderr, /"decision":"deny"/);
  });
});
