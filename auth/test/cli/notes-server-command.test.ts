import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
const REQUIRED = [
  '--resource',
  'http://127.0.0.1:9/mcp',
  '--issuer',
  'http://127.0.0.1:9/t',
  '--jwks-uri',
  'http://127.0.0.1:9/jwks.json',
];

function run(args: string[]) {
  return spawnSync(process.execPath, [MAIN, 'notes-server', ...args], { encoding: 'utf8', timeout: 20_000 });
}

describe('notegate notes-server', () => {
  it('--help documents every option with its default', () => {
    const result = run(['--help']);
    assert.equal(result.status, 0);
    for (const option of [
      '--name NAME',
      '--resource URL',
      '--issuer URL',
      '--jwks-uri URL',
      '--notes-dir DIR',
      '--host HOST',
      '--port PORT',
      '--audit-log FILE',
      '--help',
    ]) {
      assert.ok(result.stdout.includes(option), option);
    }
    assert.match(result.stdout, /--name NAME .*\(default: notes\)/);
    assert.match(result.stdout, /--notes-dir DIR .*\(default: \.notegate\/notes\/NAME under the working directory\)/);
    assert.match(result.stdout, /--audit-log FILE .*\(default: stderr\)/);
    assert.match(result.stdout, /--resource URL .*\(required\)/);
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
    ['a malformed issuer', [...REQUIRED, '--issuer', 'not a url'], /--issuer: 'not a url' is not an absolute URL/],
    ['a bad port', [...REQUIRED, '--port', '70000'], /--port: 70000 is out of range \(allowed: 0 to 65535\)/],
    ['a bad name', [...REQUIRED, '--name', 'has space'], /--name: 'has space' is not allowed/],
    ['an unknown option', [...REQUIRED, '--verbose'], /unknown option --verbose/],
    ['an unwritable audit log', [...REQUIRED, '--audit-log', '/proc/nope/audit.log'], /--audit-log: cannot open/],
  ];
  for (const [what, args, message] of badStarts) {
    it(`exits 2 naming the problem for ${what}`, () => {
      const result = run(args);
      assert.equal(result.status, 2, result.stderr);
      assert.match(result.stderr, message);
      assert.equal(result.stdout, '');
    });
  }

  it('prints exactly one listening line, serves, audits to the file and stops on SIGTERM', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'notes-cli-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const audit = join(dir, 'audit.log');
    const child = spawn(process.execPath, [
      MAIN,
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
    t.after(() => child.kill('SIGKILL'));
    const lines: string[] = [];
    const endpoint = await firstLine(child, lines);
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
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    assert.equal(await exit, 0);
    assert.deepEqual(lines, [endpoint], 'one line on stdout');
    const [entry] = readFileSync(audit, 'utf8').trim().split('\n');
    assert.match(entry ?? '', /"component":"mcp_server:notes-a".*"decision":"deny"/);
  });
});

function firstLine(child: ChildProcess, lines: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    if (!child.stdout) return reject(new Error('no stdout'));
    const reader = createInterface({ input: child.stdout });
    reader.on('line', (line) => {
      lines.push(line);
      if (lines.length === 1) resolve(line);
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code} before listening`)));
  });
}
