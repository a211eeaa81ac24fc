import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, it } from 'node:test';
import { unwrapHelp } from '@notegate/kit/testing';
import { serverAddress } from '../../src/cli/server-address.js';
import { loadEnvironment } from '../../src/config/environment.js';
import { cliPath, runNode, spawnNode } from '../../test-support/child.js';
import { tempDir, workspace } from '../../test-support/fixtures.js';
import { testModelCache } from '../../test-support/test-model/test-model.js';

const NONE = { port: undefined, host: undefined };

function environmentIn(cwd: string, env: Record<string, string>) {
  return loadEnvironment({ cwd, env, platform: 'linux', homeDir: '/home/ada' });
}

describe('serve address precedence', () => {
  it('takes --port, then NOTEGATE_SERVER_PORT, then 8765; the same for the host', (t) => {
    const cwd = tempDir(t);
    const bare = environmentIn(cwd, {});
    assert.deepEqual(serverAddress(NONE, bare), { host: '127.0.0.1', port: 8765 });
    const env = environmentIn(cwd, { NOTEGATE_SERVER_PORT: '9001', NOTEGATE_SERVER_HOST: '::1' });
    assert.deepEqual(serverAddress(NONE, env), { host: '::1', port: 9001 });
    assert.deepEqual(serverAddress({ port: '0', host: 'localhost' }, env), { host: 'localhost', port: 0 });
  });

  it('reads .env in the working directory, and the real environment wins over it', (t) => {
    const cwd = tempDir(t);
    writeFileSync(path.join(cwd, '.env'), 'NOTEGATE_SERVER_PORT=9100\nNOTEGATE_SERVER_HOST=127.0.0.2\n');
    assert.deepEqual(serverAddress(NONE, environmentIn(cwd, {})), { host: '127.0.0.2', port: 9100 });
    assert.deepEqual(serverAddress(NONE, environmentIn(cwd, { NOTEGATE_SERVER_PORT: '9200' })), {
      host: '127.0.0.2',
      port: 9200,
    });
  });

  it('refuses an unparseable port, naming where it came from, and never falls back', (t) => {
    const cwd = tempDir(t);
    const bad = environmentIn(cwd, { NOTEGATE_SERVER_PORT: '87x65' });
    assert.throws(() => serverAddress(NONE, bad), {
      name: 'UsageError',
      message: /^NOTEGATE_SERVER_PORT: '87x65' is not an integer \(allowed: 0 to 65535\)$/,
    });
    // A valid flag wins before the bad variable is looked at; a bad flag is named as the flag.
    assert.equal(serverAddress({ port: '1234', host: undefined }, bad).port, 1234);
    assert.throws(() => serverAddress({ port: '70000', host: undefined }, bad), {
      message: /^--port: 70000 is out of range/,
    });
  });
});

describe('notegate-rag serve (process)', () => {
  it('lists every option with its default under --help', async (t) => {
    const result = await runNode(t, cliPath(), ['serve', '--help']);
    assert.equal(result.code, 0);
    for (const option of [
      /--config PATH .*\(default: NOTEGATE_CONFIG, else the per-user config .* when it exists, else rag\/vaults\.json under the repository root when it exists\)/,
      /--port PORT .*\(default: NOTEGATE_SERVER_PORT, else 8765\)/,
      /--host ADDRESS .*\(default: NOTEGATE_SERVER_HOST, else 127\.0\.0\.1\)/,
      /--verbose-health .*\(default: off\)/,
      /--watch .*\(default: off\)/,
      /--max-connections N .*\(default: 512\)/,
      /--help/,
    ]) {
      assert.match(unwrapHelp(result.stdout), option);
    }
  });

  it('exits 2 on an unparseable port from .env, naming the variable', async (t) => {
    const ws = workspace(t, { v: { 'a.md': '# A\n' } });
    writeFileSync(path.join(ws.root, '.env'), 'NOTEGATE_SERVER_PORT=eighty\n');
    const result = await runNode(t, cliPath(), ['serve', '--config', ws.configPath], {
      cwd: ws.root,
      env: { PATH: process.env.PATH, HOME: ws.home },
    });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /^notegate-rag serve: NOTEGATE_SERVER_PORT: 'eighty' is not an integer/);
    assert.equal(result.stdout, '');
  });

  it('exits 2 at once, naming the address, when the port is taken', async (t) => {
    const ws = workspace(t, { v: { 'a.md': '# A\n' } });
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    t.after(() => taken.close());
    const { port } = taken.address() as AddressInfo;
    const env = { PATH: process.env.PATH, HOME: ws.home, NOTEGATE_MODEL_CACHE: testModelCache() };
    const args = ['serve', '--config', ws.configPath, '--port', String(port)];
    const result = await runNode(t, cliPath(), args, { env });
    assert.equal(result.code, 2);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port} \\(EADDRINUSE\\)`));
  });

  it('prints one listening line, serves /health, and stops on SIGTERM', async (t) => {
    const ws = workspace(t, { v: { 'a.md': '# A\n\nAlpha.\n' } });
    const env = { PATH: process.env.PATH, HOME: ws.home, NOTEGATE_MODEL_CACHE: testModelCache() };
    const child = spawnNode(t, cliPath(), ['serve', '--config', ws.configPath, '--port', '0'], { env });
    let stderr = '';
    child.process.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const line = await child.waitForLine(/^listening on /);
    const url = new URL(line.replace('listening on ', ''));
    assert.equal(url.hostname, '127.0.0.1');
    const health = await fetch(new URL('/health', url));
    const body = (await health.json()) as { index: { state: string; path: string } };
    // No index yet: the server runs and says so.
    assert.equal(health.status, 503);
    assert.equal(body.index.state, 'missing');
    assert.equal(body.index.path, '.notegate/index.sqlite', 'relative to the repository root');
    child.process.kill('SIGTERM');
    assert.equal(await child.exited(), 0);
    assert.deepEqual(child.lines, [line]);
    assert.match(stderr, /^notegate-rag serve: version \d+\.\d+\.\d+$/m, 'its version on stderr');
  });

  it('reports the absolute index path in /health only under --verbose-health', async (t) => {
    const ws = workspace(t, { v: { 'a.md': '# A\n\nAlpha.\n' } });
    const env = { PATH: process.env.PATH, HOME: ws.home, NOTEGATE_MODEL_CACHE: testModelCache() };
    const args = ['serve', '--config', ws.configPath, '--port', '0', '--verbose-health'];
    const child = spawnNode(t, cliPath(), args, { env });
    const url = new URL((await child.waitForLine(/^listening on /)).replace('listening on ', ''));
    const body = (await (await fetch(new URL('/health', url))).json()) as { index: { path: string } };
    assert.equal(body.index.path, ws.config.indexPath);
    assert.ok(path.isAbsolute(body.index.path));
    child.process.kill('SIGTERM');
    assert.equal(await child.exited(), 0);
  });
});
