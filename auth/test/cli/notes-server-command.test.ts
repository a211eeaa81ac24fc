import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { reservePort } from '@notegate/kit/http';
import { assertOptionsDocumented, unwrapHelp, waitFor } from '@notegate/kit/testing';
import { TestAccessTokenIssuer } from '../support/access-token-issuer.js';
import { runNotegate, startNotegate } from '../support/cli-process.js';
import { mcpHeaders, rpc } from '../support/notes-server-fixture.js';

const REQUIRED = [
  '--resource',
  'http://127.0.0.1:9/mcp',
  '--issuer',
  'http://127.0.0.1:9/t',
  '--jwks-uri',
  'http://127.0.0.1:9/jwks.json',
];

const run = (args: string[]) => runNotegate(['notes-server', ...args]);

describe('notegate notes-server', () => {
  it('--help documents every option with its default', async () => {
    const result = await run(['--help']);
    assert.equal(result.code, 0);
    assertOptionsDocumented(result.stdout, [
      '--name NAME',
      '--resource URL',
      '--issuer URL',
      '--jwks-uri URL',
      '--vaults-config FILE',
      '--vault ID',
      '--write-vault ID',
      '--notes-dir DIR',
      '--host HOST',
      '--port PORT',
      '--audit-log FILE',
      '--max-token-lifetime SECONDS',
      '--metrics-port PORT',
      '--metrics-host HOST',
      '--max-connections N',
    ]);
    assert.match(unwrapHelp(result.stdout), /--max-token-lifetime SECONDS .*\(default: 900\)/);
    assert.match(unwrapHelp(result.stdout), /--metrics-host HOST .*loopback.*\(default: 127\.0\.0\.1\)/);
    assert.match(result.stdout, /^ {2}--help /m);
    assert.match(unwrapHelp(result.stdout), /--name NAME .*\(default: notes\)/);
    assert.match(
      unwrapHelp(result.stdout),
      /--vaults-config FILE .*\(default: the config notegate-rag finds \(NOTEGATE_CONFIG, rag\/vaults\.json under the repository root/,
    );
    assert.match(unwrapHelp(result.stdout), /--write-vault ID .*\(default: the first --vault\)/);
    assert.match(unwrapHelp(result.stdout), /--audit-log FILE .*\(default: stderr\)/);
    assert.match(unwrapHelp(result.stdout), /--resource URL .*\(required\)/);
  });

  const badStarts: [string, string[], RegExp][] = [
    ['a missing --resource', ['--issuer', 'http://a/t', '--jwks-uri', 'http://a/j'], /--resource is required/],
    ['a missing --jwks-uri', ['--resource', 'http://a/mcp', '--issuer', 'http://a/t'], /--jwks-uri is required/],
    [
      'a non-http resource',
      [...REQUIRED, '--resource', 'ftp://a/mcp'],
      /--resource: 'ftp:\/\/a\/mcp' must use http or https/,
    ],
    [
      'a resource with a query',
      [...REQUIRED, '--resource', 'http://a/mcp?x=1'],
      /--resource: .*must not have a query string/,
    ],
    ['a resource with a fragment', [...REQUIRED, '--resource', 'http://a/mcp#f'], /--resource: .*fragment/],
    [
      'a resource ending in two slashes',
      [...REQUIRED, '--resource', 'http://a/mcp//'],
      /--resource: 'http:\/\/a\/mcp\/\/' must not end with more than one '\/'/,
    ],
    [
      'a resource HTTP clients spell otherwise (an abbreviated IPv4 address)',
      [...REQUIRED, '--resource', 'http://127.1:8081/mcp'],
      /--resource: 'http:\/\/127\.1:8081\/mcp' is spelled 'http:\/\/127\.0\.0\.1:8081\/mcp' by HTTP clients/,
    ],
    [
      'a resource HTTP clients spell otherwise (a dot segment)',
      [...REQUIRED, '--resource', 'http://a/x/../mcp'],
      /--resource: 'http:\/\/a\/x\/\.\.\/mcp' is spelled 'http:\/\/a\/mcp' by HTTP clients/,
    ],
    ['an issuer with a query', [...REQUIRED, '--issuer', 'http://a/t?x=1'], /--issuer: .*must not have a query string/],
    ['a malformed issuer', [...REQUIRED, '--issuer', 'not a url'], /--issuer: 'not a url' is not an absolute URL/],
    ['a bad port', [...REQUIRED, '--port', '70000'], /--port: 70000 is out of range \(allowed: 0 to 65535\)/],
    [
      'a token lifetime bound of 0',
      [...REQUIRED, '--max-token-lifetime', '0'],
      /--max-token-lifetime: 0 is out of range \(allowed: 1 to 86400\)/,
    ],
    [
      'a connection cap of 0',
      [...REQUIRED, '--max-connections', '0'],
      /--max-connections: 0 is out of range \(allowed: 1 to 65536\)/,
    ],
    ['a bad name', [...REQUIRED, '--name', 'has space'], /--name: 'has space' is not allowed/],
    ['an unknown option', [...REQUIRED, '--verbose'], /unknown option --verbose/],
    ['a bad metrics port', [...REQUIRED, '--metrics-port', 'x'], /--metrics-port: 'x' is not an integer/],
    ['an unwritable audit log', [...REQUIRED, '--audit-log', '/proc/nope/audit.log'], /--audit-log: cannot open/],
  ];
  it('exits 2 naming the problem for each bad start', async () => {
    const results = await Promise.all(badStarts.map(([, args]) => run(args)));
    for (const [index, [what, , message]] of badStarts.entries()) {
      const result = results[index];
      assert.ok(result, what);
      assert.equal(result.code, 2, `${what}: ${result.stderr}`);
      assert.match(result.stderr, message, what);
      assert.equal(result.stdout, '', what);
    }
  });

  it('prints exactly one listening line, serves, audits to the file and stops on SIGTERM', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'notes-cli-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const audit = join(dir, 'audit.log');
    const { child, output } = await startNotegate(t, [
      'notes-server',
      ...REQUIRED,
      '--name',
      'notes-a',
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--notes-dir',
      join(dir, 'notes'),
      '--audit-log',
      audit,
    ]);
    const endpoint = output.stdout.split('\n')[0] ?? '';
    assert.match(endpoint, /^listening on http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const url = endpoint.slice('listening on '.length);
    const metadata = await fetch(new URL('/.well-known/oauth-protected-resource/mcp', url));
    assert.equal(((await metadata.json()) as { resource: string }).resource, 'http://127.0.0.1:9/mcp');
    const refused = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    });
    assert.equal(refused.status, 401);
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    assert.equal(code, 0);
    assert.equal(output.stdout, `${endpoint}\n`, 'one line on stdout');
    const [entry] = readFileSync(audit, 'utf8').trim().split('\n');
    assert.match(entry ?? '', /"component":"mcp_server:notes-a".*"decision":"deny"/);
  });

  it('on SIGHUP distrusts its key set and fetches it again, so a removed key stops at once; it keeps serving', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'notes-cli-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const port = await reservePort();
    const resource = `http://127.0.0.1:${port}/mcp`;
    const issuer = await TestAccessTokenIssuer.start(resource);
    t.after(() => issuer.close());
    const { child, output } = await startNotegate(t, [
      'notes-server',
      ...['--resource', resource, '--issuer', issuer.issuer, '--jwks-uri', issuer.jwksUri],
      ...['--port', String(port), '--notes-dir', join(dir, 'notes'), '--audit-log', join(dir, 'audit.log')],
    ]);
    const call = (token: string) =>
      fetch(resource, { method: 'POST', headers: mcpHeaders(token), body: rpc('tools/list') });
    const old = await issuer.sign();
    assert.equal((await call(old)).status, 200);
    await issuer.rotate({ retire: true });
    assert.equal((await call(old)).status, 200, 'within the maximum age the set in memory stands');
    const fetches = issuer.fetchCount;
    child.kill('SIGHUP');
    await waitFor('the refetch', () => /notes-server: key set refetched: kids /.test(output.stderr));
    assert.equal(issuer.fetchCount, fetches + 1);
    assert.equal((await call(old)).status, 401, 'the removed key no longer verifies');
    assert.equal((await call(await issuer.sign())).status, 200, 'the new key does');
    assert.equal(child.exitCode, null, 'SIGHUP does not stop the server');
    child.kill('SIGTERM');
    assert.deepEqual(await once(child, 'exit'), [0, null]);
  });
});
