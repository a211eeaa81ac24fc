import assert from 'node:assert/strict';
import { chmod, chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { UsageError } from '@notegate/kit/cli';
import { waitFor } from '@notegate/kit/testing';
import { parsePolicy } from '../../src/policy/policy-file.js';
import { openPolicyFile } from '../../src/policy/policy-source.js';
import { openError } from '../support/open-error.js';

const EXAMPLE = `trust_domain: example.org
grants:
  - spiffe_id: spiffe://example.org/agent
    resources:
      - resource: http://127.0.0.1:8081/mcp
        scopes: [notes:read, notes:write]
      - resource: http://127.0.0.1:8082/mcp/
        scopes: [notes:read]
`;

/** The example with one line replaced, so each case shows exactly what is wrong. */
const variant = (from: string, to: string) => {
  assert.ok(EXAMPLE.includes(from), from);
  return EXAMPLE.replace(from, to);
};

describe('parsePolicy', () => {
  it('reads the example of docs/protocol.md#policy-file', () => {
    const policy = parsePolicy(EXAMPLE, 'policy.yaml');
    assert.equal(policy.trustDomain, 'example.org');
    const grant = policy.grantFor('spiffe://example.org/agent');
    assert.ok(grant);
    assert.deepEqual([...(grant.scopesFor('http://127.0.0.1:8081/mcp') ?? [])], ['notes:read', 'notes:write']);
    assert.equal(policy.grantFor('spiffe://example.org/other'), undefined);
  });

  it('compares resources in the resource form, on either side (docs/protocol.md#identifiers)', () => {
    const grant = parsePolicy(EXAMPLE, 'policy.yaml').grantFor('spiffe://example.org/agent');
    assert.ok(grant?.scopesFor('http://127.0.0.1:8081/mcp/'));
    assert.ok(grant?.scopesFor('http://127.0.0.1:8082/mcp'));
    assert.ok(grant?.scopesFor('HTTP://127.0.0.1:8081/mcp'));
    assert.equal(grant?.scopesFor('http://127.0.0.1:8081/mcp//'), undefined);
    assert.equal(grant?.scopesFor('http://127.0.0.1:8081/mcp/x'), undefined);
    assert.equal(grant?.scopesFor('http://127.0.0.1:8081/MCP'), undefined, 'the path keeps its case');
    assert.equal(grant?.scopesFor('http://localhost:8081/mcp'), undefined);
    assert.equal(grant?.scopesFor('http://127.0.0.1:8081/mcp?x=1'), undefined);
  });

  it('matches a grant written in any equivalent spelling', () => {
    const written = EXAMPLE.replace('http://127.0.0.1:8081/mcp', 'HTTP://LocalHost:80/Notes/');
    const grant = parsePolicy(written, 'policy.yaml').grantFor('spiffe://example.org/agent');
    for (const spelling of ['http://localhost/Notes', 'http://LOCALHOST:80/Notes/', 'http://localhost/Notes/']) {
      assert.deepEqual([...(grant?.scopesFor(spelling) ?? [])], ['notes:read', 'notes:write'], spelling);
    }
    assert.equal(grant?.scopesFor('http://localhost/notes'), undefined);
  });

  it('is deep-frozen', () => {
    const policy = parsePolicy(EXAMPLE, 'policy.yaml');
    const scopes = policy.document.grants[0]?.resources[0]?.scopes;
    assert.ok(scopes);
    assert.ok(Object.isFrozen(policy));
    assert.ok(Object.isFrozen(policy.document.grants));
    assert.ok(Object.isFrozen(scopes));
    assert.throws(() => Reflect.apply(Array.prototype.push, scopes, ['notes:admin']), TypeError);
  });

  const refusals: ReadonlyArray<readonly [string, string, RegExp]> = [
    ['an unknown top-level key', `${EXAMPLE}version: 2\n`, /top level: unknown key version/],
    ['an unknown grant key', variant('  - spiffe_id:', '  - name: x\n    spiffe_id:'), /grants\[0\]: unknown key name/],
    [
      'an unknown resource key',
      variant('        scopes: [notes:read]\n', '        scopes: [notes:read]\n        ttl: 5\n'),
      /grants\[0\]\.resources\[1\]: unknown key ttl/,
    ],
    [
      'a SPIFFE ID outside trust_domain',
      variant('spiffe://example.org/agent', 'spiffe://other.org/agent'),
      /grants\[0\]\.spiffe_id: 'spiffe:\/\/other\.org\/agent' is outside trust_domain example\.org/,
    ],
    [
      'a malformed SPIFFE ID',
      variant('spiffe://example.org/agent', 'spiffe://example.org/a//b'),
      /grants\[0\]\.spiffe_id: .*empty segments/,
    ],
    [
      'a duplicate spiffe_id',
      `${EXAMPLE}  - spiffe_id: spiffe://example.org/agent\n    resources:\n      - resource: http://x/mcp\n        scopes: [notes:read]\n`,
      /grants\[1\]\.spiffe_id: 'spiffe:\/\/example\.org\/agent' duplicates grants\[0\]\.spiffe_id/,
    ],
    [
      'a relative resource',
      variant('http://127.0.0.1:8081/mcp', '/mcp'),
      /grants\[0\]\.resources\[0\]\.resource: '\/mcp' is not an absolute URI with an authority \(expected an http\(s\) URL\)$/,
    ],
    [
      'a resource with another scheme',
      variant('http://127.0.0.1:8081/mcp', 'ftp://127.0.0.1/mcp'),
      /grants\[0\]\.resources\[0\]\.resource: 'ftp:\/\/127\.0\.0\.1\/mcp' must use http or https/,
    ],
    [
      'a resource with a fragment',
      variant('http://127.0.0.1:8082/mcp/', 'http://127.0.0.1:8082/mcp#top'),
      /grants\[0\]\.resources\[1\]\.resource: .*must not have a fragment/,
    ],
    [
      'a resource with a query',
      variant('http://127.0.0.1:8082/mcp/', 'http://127.0.0.1:8082/mcp?tenant=1'),
      /grants\[0\]\.resources\[1\]\.resource: .*must not have a query string/,
    ],
    [
      'a resource with user information',
      variant('http://127.0.0.1:8082/mcp/', 'http://me@127.0.0.1:8082/mcp'),
      /grants\[0\]\.resources\[1\]\.resource: .*must not carry user information/,
    ],
    [
      'a resource ending in two slashes',
      variant('http://127.0.0.1:8082/mcp/', 'http://127.0.0.1:8082/mcp//'),
      /grants\[0\]\.resources\[1\]\.resource: .*must not end with more than one '\/'/,
    ],
    [
      'the same resource twice in another spelling',
      variant('http://127.0.0.1:8082/mcp/', 'HTTP://127.0.0.1:8081/mcp'),
      /grants\[0\]\.resources\[1\]\.resource: .* duplicates grants\[0\]\.resources\[0\]\.resource/,
    ],
    [
      'the same resource twice once the trailing slash is removed',
      variant('http://127.0.0.1:8082/mcp/', 'http://127.0.0.1:8081/mcp/'),
      /grants\[0\]\.resources\[1\]\.resource: .* duplicates grants\[0\]\.resources\[0\]\.resource/,
    ],
    [
      'a scope no notes tool has (a typo), with the allowed ones',
      variant('[notes:read, notes:write]', '[notes:read, notes:wrte]'),
      /grants\[0\]\.resources\[0\]\.scopes\[1\]: "notes:wrte" is not a notes scope \(allowed: notes:read, notes:write\)/,
    ],
    [
      'a scope that is not a scope-token',
      variant('[notes:read, notes:write]', '[notes:read, "notes write"]'),
      /grants\[0\]\.resources\[0\]\.scopes\[1\]: "notes write" is not a notes scope/,
    ],
    [
      'a scope that is a number',
      variant('[notes:read]', '[notes:read, 7, x]'),
      /grants\[0\]\.resources\[1\]\.scopes\[1\]: 7 is not a notes scope/,
    ],
    ['a duplicate scope', variant('[notes:read]', '[notes:read, notes:read]'), /scopes\[1\]: 'notes:read' duplicates/],
    [
      'an empty scope list',
      variant('[notes:read]', '[]'),
      /grants\[0\]\.resources\[1\]\.scopes: must be a non-empty list/,
    ],
    ['no grants', 'trust_domain: example.org\ngrants: []\n', /grants: must be a non-empty list/],
    ['a bad trust domain', variant('trust_domain: example.org', 'trust_domain: Example.org'), /trust_domain: /],
    ['invalid YAML', 'trust_domain: [', /YAML: /],
    ['a list at the top', '- a\n', /top level: must be a mapping/],
    ['a duplicate key', `${EXAMPLE}trust_domain: example.org\n`, /YAML: .*[Uu]nique/],
  ];
  for (const [what, text, message] of refusals) {
    it(`refuses ${what}, naming the entry`, () => {
      assert.throws(
        () => parsePolicy(text, 'policy.yaml'),
        (err: unknown) => err instanceof UsageError && message.test(err.message) && err.message.includes('policy.yaml'),
      );
    });
  }
});

describe('PolicyFile', () => {
  it('reads a file at open and names it when it cannot', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'notegate-policy-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const path = join(dir, 'policy.yaml');
    await writeFile(path, EXAMPLE, { mode: 0o644 });
    const policy = await openPolicyFile({ path, onEvent: () => undefined });
    t.after(() => policy.close());
    assert.equal(policy.current().trustDomain, 'example.org');
    await assert.rejects(
      openPolicyFile({ path: join(dir, 'missing.yaml'), onEvent: () => undefined }),
      /--policy .*missing\.yaml: cannot read/,
    );
  });

  it('refuses a file that others may write or that another user owns, at open and at every reload, keeping the policy in force', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'notegate-policy-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const path = join(dir, 'policy.yaml');
    await writeFile(path, EXAMPLE, { mode: 0o666 });
    await chmod(path, 0o666);
    const refused = await openError(() => openPolicyFile({ path, onEvent: () => undefined }));
    assert.ok(refused instanceof UsageError, String(refused));
    assert.equal(
      refused.message,
      `--policy ${path}: the file is writable by group or others (mode 0666); remove their write permission (chmod go-w)`,
    );
    await chmod(path, 0o644);
    const events: string[] = [];
    const results: string[] = [];
    const policy = await openPolicyFile({
      path,
      pollIntervalMs: 3_600_000,
      onEvent: (message) => events.push(message),
      onReload: (result) => results.push(result),
    });
    t.after(() => policy.close());

    // Another user's edit of a world-writable file: refused, whatever it says.
    await chmod(path, 0o666);
    await writeFile(path, variant('spiffe_id: spiffe://example.org/agent', 'spiffe_id: spiffe://example.org/other'));
    policy.reload();
    await waitFor('the refusal', () => results.length === 1);
    assert.deepEqual(results, ['invalid']);
    assert.equal(
      events.at(-1),
      'policy reload refused, the previous policy stays in force: the file is writable by group or others (mode 0666); remove their write permission (chmod go-w)',
    );
    assert.equal(policy.current().grantFor('spiffe://example.org/other'), undefined, 'the policy in force stays');
    assert.ok(policy.current().grantFor('spiffe://example.org/agent'));

    if (process.getuid?.() === 0) {
      await chmod(path, 0o644);
      await chown(path, 65_534, 65_534);
      policy.reload();
      await waitFor('the second refusal', () => results.length === 2);
      assert.match(events.at(-1) ?? '', /the file is owned by uid 65534, neither this user \(uid 0\) nor root$/);
      assert.equal(policy.current().grantFor('spiffe://example.org/other'), undefined);
      await chown(path, 0, 0);
    }

    await chmod(path, 0o644);
    policy.reload();
    await waitFor(
      'the fixed file to be taken',
      () => policy.current().grantFor('spiffe://example.org/other') !== undefined,
    );
    assert.equal(results.at(-1), 'ok');
  });

  it('takes a valid new file, refuses a bad one keeping the policy in force, and answers every reload', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'notegate-policy-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const path = join(dir, 'policy.yaml');
    await writeFile(path, EXAMPLE, { mode: 0o644 });
    const events: string[] = [];
    const results: string[] = [];
    const policy = await openPolicyFile({
      path,
      pollIntervalMs: 3_600_000,
      onEvent: (message) => events.push(message),
      onReload: (result) => results.push(result),
    });
    t.after(() => policy.close());

    await writeFile(path, variant('spiffe_id: spiffe://example.org/agent', 'spiffe_id: spiffe://example.org/other'));
    policy.reload();
    await waitFor('the new policy', () => policy.current().grantFor('spiffe://example.org/other') !== undefined);
    assert.deepEqual(results, ['ok']);

    await writeFile(
      path,
      variant('spiffe_id: spiffe://example.org/agent', 'spiffe_id: spiffe://example.org/other').replace(
        'trust_domain: example.org',
        'trust_domain: example.com',
      ),
    );
    policy.reload();
    await waitFor('the refusal', () => results.length === 2);
    policy.reload();
    await waitFor('the second refusal: a reload is answered even when nothing changed', () => results.length === 3);
    assert.deepEqual(results, ['ok', 'invalid', 'invalid']);
    assert.ok(policy.current().grantFor('spiffe://example.org/other'), 'the policy in force stays');
    assert.match(
      events.at(-1) ?? '',
      /policy reload refused, the previous policy stays in force: .*grants\[0\]\.spiffe_id/,
    );
  });
});
