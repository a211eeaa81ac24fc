import assert from 'node:assert/strict';
import { once } from 'node:events';
import { chmod, chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { describe, it } from 'node:test';
import { spawnNode, unwrapHelp, waitFor } from '@notegate/kit/testing';
import { readAuditFile } from '../support/audit-file.js';
import { POLICY_YAML, RESOURCE_A, tokenForm } from '../support/authz-fixtures.js';
import { MAIN, runNotegate, startNotegate } from '../support/cli-process.js';
import { fastClient, startProvider, tempSocketDir } from '../support/provider-fixtures.js';
import { testKey } from '../support/svid-fixtures.js';

const ISSUER = 'http://127.0.0.1:8080';

async function workspace(t: TestContext) {
  const dir = await mkdtemp(join(tmpdir(), 'notegate-authz-cli-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const policy = join(dir, 'policy.yaml');
  await writeFile(policy, POLICY_YAML, { mode: 0o644 });
  const bundle = join(dir, 'bundle.json');
  await writeFile(bundle, JSON.stringify({ keys: [testKey('P-256', 'k').publicJwk] }));
  return { dir, policy, bundle };
}

/** The environment without SPIFFE_ENDPOINT_SOCKET, so the default bundle source is unset. */
function envWithoutEndpoint(): NodeJS.ProcessEnv {
  const { SPIFFE_ENDPOINT_SOCKET: _unused, ...rest } = process.env;
  return rest;
}

const authz = (args: string[], env = envWithoutEndpoint()) => runNotegate(['authz', ...args], env);

describe('notegate authz', () => {
  it('documents every option with its default under --help', async () => {
    const { code, stdout } = await authz(['--help']);
    assert.equal(code, 0);
    for (const line of [
      /--issuer URL .*\(required\)/,
      /--policy FILE .*\(required\)/,
      /--jwt-bundle FILE .*\(default: none; the Workload API is used\)/,
      /--workload-api ADDR .*\(default: SPIFFE_ENDPOINT_SOCKET\)/,
      /--host HOST .*\(default: the host of --issuer\)/,
      /--port PORT .*\(default: the port of --issuer\)/,
      /--max-svid-lifetime SECONDS .*\(default: 300\)/,
      /--svid-replay reject\|allow-reuse-within-lifetime .*\(default: reject\)/,
      /--audit-log FILE .*\(default: stderr\)/,
      /--replay-store STORE .*\(default: memory\)/,
      /--replay-store-password-file FILE .*\(default: none; else NOTEGATE_REDIS_PASSWORD\)/,
      /--replay-capacity N .*\(default: 10000 with memory, 1000000 with Redis\)/,
      /--signing-keys FILE .*\(default: none; one key generated in memory at start\)/,
      /--metrics-port PORT .*\(default: none: no metrics listener\)/,
      /--metrics-host HOST .*loopback.*\(default: 127\.0\.0\.1\)/,
      /--max-connections N .*beyond them gets 503\. \(default: 512\)/,
      /--help/,
    ]) {
      assert.match(unwrapHelp(stdout), line);
    }
  });

  it('exits 2 naming the entry of a bad policy', async (t) => {
    const { dir, bundle } = await workspace(t);
    const policy = join(dir, 'bad.yaml');
    await writeFile(policy, POLICY_YAML.replace('[notes:read]', '[notes:read, "bad scope"]'));
    const { code, stderr } = await authz(['--issuer', ISSUER, '--policy', policy, '--jwt-bundle', bundle]);
    assert.equal(code, 2);
    assert.match(
      stderr,
      /bad\.yaml: grants\[0\]\.resources\[1\]\.scopes\[1\]: "bad scope" is not a notes scope \(allowed: notes:read, notes:write\)/,
    );
  });

  it('exits 2 naming the signing key file and its wrong entry', async (t) => {
    const { dir, policy, bundle } = await workspace(t);
    const keys = join(dir, 'keys.json');
    await writeFile(keys, JSON.stringify({ keys: [{ kty: 'EC', crv: 'P-256' }] }), { mode: 0o600 });
    const { code, stderr } = await authz([
      '--issuer',
      ISSUER,
      '--policy',
      policy,
      '--jwt-bundle',
      bundle,
      '--signing-keys',
      keys,
    ]);
    assert.equal(code, 2);
    assert.match(stderr, /--signing-keys .*keys\.json: keys\[0\]\.x: /);
  });

  const untrusted: [string, 'policy' | 'keys', (path: string) => Promise<void>, RegExp][] = [
    [
      'a signing key file readable by others (0644)',
      'keys',
      (path) => chmod(path, 0o644),
      /^notegate authz: --signing-keys \S+keys\.json: the file is readable by group or others \(mode 0644\); make it owner-only \(chmod 600\)$/m,
    ],
    [
      'a signing key file writable by others (0666)',
      'keys',
      (path) => chmod(path, 0o666),
      /--signing-keys \S+keys\.json: the file is writable by group or others \(mode 0666\)/,
    ],
    [
      'a policy file writable by group (0664)',
      'policy',
      (path) => chmod(path, 0o664),
      /^notegate authz: --policy \S+policy\.yaml: the file is writable by group or others \(mode 0664\); remove their write permission \(chmod go-w\)$/m,
    ],
  ];
  if (process.getuid?.() === 0) {
    for (const which of ['policy', 'keys'] as const) {
      untrusted.push([
        `a ${which === 'keys' ? 'signing key' : 'policy'} file of another user`,
        which,
        (path) => chown(path, 65_534, 65_534),
        /the file is owned by uid 65534, neither this user \(uid 0\) nor root/,
      ]);
    }
  }
  for (const [what, which, spoil, message] of untrusted) {
    it(`exits 2 on ${what}, naming the file and why`, async (t: TestContext) => {
      const { dir, policy, bundle } = await workspace(t);
      const keys = join(dir, 'keys.json');
      const made = await runNotegate(['authz', 'keygen', '--out', keys]);
      assert.equal(made.code, 0, made.stderr);
      await spoil(which === 'keys' ? keys : policy);
      const args = [
        '--issuer',
        ISSUER,
        '--port',
        '0',
        '--policy',
        policy,
        '--jwt-bundle',
        bundle,
        '--signing-keys',
        keys,
      ];
      // Spawned, not awaited: a server that wrongly starts is seen listening (and stopped after the test).
      const { child, output } = spawnNode(t, [MAIN, 'authz', ...args], envWithoutEndpoint());
      await waitFor('authz to exit or listen', () => child.exitCode !== null || output.stdout.includes('listening on'));
      assert.equal(child.exitCode, 2, output.stdout);
      assert.match(output.stderr, message);
    });
  }

  it('exits 2 on a signing key file that is not JSON (a bare base64 key), quoting none of it', async (t) => {
    const { dir, policy, bundle } = await workspace(t);
    const keys = join(dir, 'keys.b64');
    const base64Der = testKey('P-256', 'k').privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64');
    await writeFile(keys, base64Der, { mode: 0o600 });
    const { code, stderr } = await authz([
      '--issuer',
      ISSUER,
      '--policy',
      policy,
      '--jwt-bundle',
      bundle,
      '--signing-keys',
      keys,
    ]);
    assert.equal(code, 2);
    assert.match(stderr, /--signing-keys .*keys\.b64: not JSON/);
    // The file's own path is named, and a random temporary folder name can hold `MI` and four more characters.
    assert.doesNotMatch(stderr.replaceAll(keys, '<file>'), /BEGIN|MI[A-Za-z0-9+/]{4}/);
  });

  it('exits 2 naming both bundle sources when neither is given', async (t) => {
    const { policy } = await workspace(t);
    const { code, stderr } = await authz(['--issuer', ISSUER, '--policy', policy]);
    assert.equal(code, 2);
    assert.match(stderr, /--jwt-bundle FILE or --workload-api .*SPIFFE_ENDPOINT_SOCKET/);
  });

  it('exits 2 naming an unreadable or unusable bundle file', async (t) => {
    const { dir, policy } = await workspace(t);
    const missing = await authz(['--issuer', ISSUER, '--policy', policy, '--jwt-bundle', join(dir, 'none.json')]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--jwt-bundle .*none\.json: cannot read/);
    const invalid = join(dir, 'invalid.json');
    await writeFile(invalid, '{"keys": 1}');
    const bad = await authz(['--issuer', ISSUER, '--policy', policy, '--jwt-bundle', invalid]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--jwt-bundle .*invalid\.json: bundle is not a JWK Set/);
  });

  it('exits 2 naming each malformed flag', async (t) => {
    const { policy, bundle } = await workspace(t);
    const base = ['--policy', policy, '--jwt-bundle', bundle];
    const cases: ReadonlyArray<readonly [string[], RegExp]> = [
      [['--issuer', 'ftp://x', ...base], /--issuer: 'ftp:\/\/x' must use http or https/],
      [['--issuer', `${ISSUER}/?t=1`, ...base], /--issuer: .* must not have a query/],
      [
        ['--issuer', ISSUER, ...base, '--svid-replay', 'never'],
        /--svid-replay: 'never' is not allowed \(allowed: reject, allow-reuse-within-lifetime\)/,
      ],
      [['--issuer', ISSUER, ...base, '--max-svid-lifetime', '0'], /--max-svid-lifetime: 0 is out of range/],
      [['--issuer', ISSUER, ...base, '--port', 'http'], /--port: 'http' is not an integer/],
      [
        ['--issuer', ISSUER, ...base, '--workload-api', 'unix:///tmp/x.sock'],
        /either --jwt-bundle FILE or --workload-api ADDR, not both/,
      ],
      [['--issuer', ISSUER, ...base, '--audit-log', '/nonexistent-dir/audit.log'], /--audit-log: cannot open/],
      [['--issuer', ISSUER, ...base, '--verbose'], /unknown option --verbose/],
      [['--issuer', ISSUER, ...base, '--replay-store', 'disk'], /--replay-store: 'disk' is not a URL/],
      [['--issuer', ISSUER, ...base, '--replay-capacity', 'lots'], /--replay-capacity: 'lots' is not an integer/],
      [['--issuer', ISSUER, ...base, '--metrics-port', '70000'], /--metrics-port: 70000 is out of range/],
      [
        ['--issuer', ISSUER, ...base, '--signing-keys', '/nonexistent/keys.json'],
        /--signing-keys \/nonexistent\/keys\.json: cannot read/,
      ],
    ];
    const results = await Promise.all(cases.map(([args]) => authz(args)));
    for (const [index, [args, message]] of cases.entries()) {
      assert.equal(results[index]?.code, 2, args.join(' '));
      assert.match(results[index]?.stderr ?? '', message);
    }
  });

  it('serves tokens with the Workload API from SPIFFE_ENDPOINT_SOCKET, auditing to a file, and stops on SIGTERM', async (t) => {
    const { dir, policy } = await workspace(t);
    const provider = await startProvider(t, { socketDir: await tempSocketDir(t) });
    const auditLog = join(dir, 'audit.log');
    const env = { ...envWithoutEndpoint(), SPIFFE_ENDPOINT_SOCKET: `unix://${provider.socketPath('authz')}` };
    const args = ['authz', '--issuer', ISSUER, '--policy', policy, '--port', '0', '--audit-log', auditLog];
    const { child, output } = await startNotegate(t, args, env);
    const match = /^listening on (http:\/\/127\.0\.0\.1:\d+)\n$/.exec(output.stdout);
    assert.ok(match?.[1], output.stdout);
    const base = match[1];

    const metadata = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as Record<
      string,
      unknown
    >;
    assert.equal(metadata.issuer, ISSUER);

    const agent = fastClient(t, provider.socketPath('agent'));
    const { svid } = await agent.fetchJwtSvid({ audience: ISSUER });
    const token = await waitFor('a token once the first bundle is in', async () => {
      const res = await fetch(`${base}/token`, { method: 'POST', body: tokenForm(svid) });
      return res.status === 200 ? ((await res.json()) as Record<string, unknown>) : res.status === 503 && undefined;
    });
    assert.equal(token.scope, 'notes:read');
    const allow = (await readAuditFile(auditLog)).at(-1) ?? {};
    assert.equal(allow.decision, 'allow');
    assert.equal(allow.resource, RESOURCE_A);

    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    assert.equal(code, 0);
    assert.equal(output.stdout.split('\n').filter(Boolean).length, 1, 'exactly one stdout line');
    assert.match(output.stderr, /^authz: version \d+\.\d+\.\d+$/m, 'its version on stderr');
  });

  it('binds the host and port of --issuer by default, and exits 2 when that port is taken', async (t) => {
    const { policy, bundle } = await workspace(t);
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    t.after(() => new Promise<void>((resolve) => taken.close(() => resolve())));
    const address = taken.address();
    assert.ok(typeof address === 'object' && address);
    const issuer = `http://127.0.0.1:${address.port}`;
    const busy = await authz(['--issuer', issuer, '--policy', policy, '--jwt-bundle', bundle]);
    assert.equal(busy.code, 2);
    assert.match(busy.stderr, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${address.port}: .*EADDRINUSE`));

    const args = ['authz', '--issuer', ISSUER, '--policy', policy, '--jwt-bundle', bundle, '--port', '0'];
    const { child, output } = await startNotegate(t, args, envWithoutEndpoint());
    assert.match(output.stdout, /^listening on http:\/\/127\.0\.0\.1:\d+\n$/);
    child.kill('SIGTERM');
    assert.deepEqual(await once(child, 'exit'), [0, null]);
  });
});
