import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { tempDir } from '@notegate/kit/testing';
import { runNotegate } from '../support/cli-process.js';

const POLICY = `trust_domain: example.org
grants:
  - spiffe_id: spiffe://example.org/agent
    resources:
      - resource: http://127.0.0.1:8081/mcp
        scopes: [notes:read, notes:write]
      - resource: http://127.0.0.1:8082/mcp/
        scopes: [notes:read]
  - spiffe_id: spiffe://example.org/reader
    resources:
      - resource: http://127.0.0.1:8081/mcp
        scopes: [notes:read]
`;

function policyFile(t: TestContext, text: string): string {
  const path = join(tempDir(t, 'notegate-check-policy-'), 'policy.yaml');
  writeFileSync(path, text);
  return path;
}

const checkPolicy = (...args: string[]) => runNotegate(['authz', 'check-policy', ...args]);

describe('notegate authz check-policy', () => {
  it('prints the grants of a valid policy and exits 0', async (t) => {
    const path = policyFile(t, POLICY);
    const { code, stdout, stderr } = await checkPolicy(path);
    assert.equal(code, 0, stderr);
    assert.equal(
      stdout,
      `${path}: valid; trust domain example.org, 2 grants\n` +
        '  spiffe://example.org/agent\n' +
        '    http://127.0.0.1:8081/mcp  notes:read notes:write\n' +
        '    http://127.0.0.1:8082/mcp/  notes:read\n' +
        '  spiffe://example.org/reader\n' +
        '    http://127.0.0.1:8081/mcp  notes:read\n',
    );
  });

  const refusals: ReadonlyArray<readonly [string, string, RegExp]> = [
    [
      'a scope typo, with the allowed scopes',
      POLICY.replace('[notes:read, notes:write]', '[notes:read, notes:wirte]'),
      /grants\[0\]\.resources\[0\]\.scopes\[1\]: "notes:wirte" is not a notes scope \(allowed: notes:read, notes:write\)/,
    ],
    [
      'an unknown key',
      POLICY.replace('        scopes: [notes:read]\n  - spiffe_id', '        scope: [notes:read]\n  - spiffe_id'),
      /grants\[0\]\.resources\[1\]: unknown key scope \(allowed: resource, scopes\)/,
    ],
    [
      'a resource no notes server can have',
      POLICY.replace('http://127.0.0.1:8082/mcp/', 'ftp://127.0.0.1:8082/mcp'),
      /grants\[0\]\.resources\[1\]\.resource: 'ftp:\/\/127\.0\.0\.1:8082\/mcp' /,
    ],
  ];
  for (const [what, text, message] of refusals) {
    it(`refuses ${what}, naming the file and the entry, with exit 2`, async (t) => {
      const path = policyFile(t, text);
      const { code, stdout, stderr } = await checkPolicy(path);
      assert.equal(code, 2);
      assert.equal(stdout, '');
      assert.match(stderr, message);
      assert.ok(stderr.includes(`policy file ${path}`), stderr);
    });
  }

  it('names what is missing: no file given, a file it cannot read', async (t) => {
    const none = await checkPolicy();
    assert.equal(none.code, 2);
    assert.match(none.stderr, /FILE: give the policy file to check/);
    const missing = join(tempDir(t, 'notegate-check-policy-'), 'missing.yaml');
    const unreadable = await checkPolicy(missing);
    assert.equal(unreadable.code, 2);
    assert.match(unreadable.stderr, /cannot read/);
  });
});
