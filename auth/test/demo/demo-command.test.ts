import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { assertOptionsDocumented, descendants, runInGroup, spawnNode, waitFor } from '@notegate/kit/testing';
import { MAIN, runNotegate } from '../support/cli-process.js';
import { alive, processesMentioning } from '../support/process-checks.js';

/** The process checks walk /proc. */
const PROC = { skip: process.platform !== 'linux' && 'reads /proc' };

/** A private TMPDIR for one demo run: whatever the demo leaves behind shows up in it. */
async function privateTmp(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'demo-test-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

function startDemo(t: TestContext, tmp: string, ...args: string[]) {
  // A model cache that does not exist: the demo of a fresh machine, with a lexical-only index.
  const env = { ...process.env, TMPDIR: tmp, NO_COLOR: '', NOTEGATE_MODEL_CACHE: join(tmp, 'no-model-cache') };
  return spawnNode(t, [MAIN, 'demo', ...args], env);
}

describe('notegate demo (a child process, the whole deployment on loopback)', () => {
  it('runs the four scenarios, all PASS, exit 0, and leaves nothing behind', async (t) => {
    const tmp = await privateTmp(t);
    const { output, exited } = startDemo(t, tmp, '--no-color');
    const code = await exited;
    assert.equal(code, 0, output.stdout + output.stderr);
    for (const title of ['Allowed', 'Insufficient scope', 'Stolen token', 'Untrusted issuer']) {
      assert.match(output.stdout, new RegExp(`^PASS  ${title} \\(`, 'm'));
    }
    assert.doesNotMatch(output.stdout, /FAIL/);
    assert.match(output.stdout, /All 4 scenarios behaved as expected\./);
    // The first lines say which identity source runs, and how to run the scenarios on SPIRE.
    assert.match(
      output.stdout,
      /^On the development identity provider\. (SPIRE 1\.15\.3 is built|To run these scenarios on SPIRE 1\.15\.3)/m,
    );
    assert.match(output.stdout, /--svid-replay reject/);
    // Scenario 1's grounded search: the handbook's note with its lines, beside the note just written.
    assert.match(output.stdout, /lexical-only index \(no model in the cache\)/);
    assert.match(output.stdout, /^ {6}handbook\/engineering\/key-rotation\.md:\d+-\d+ {1,2}\S/m);
    assert.match(output.stdout, /^ {6}notes-a\/Signing key rotation drill\.md:\d+-\d+ {1,2}\S/m);
    // Each scenario shows the audit lines its decisions produced.
    assert.match(output.stdout, /mcp_server:notes-a {2}deny {3}spiffe:\/\/example\.org\/reader {2}notes\.write/);
    assert.match(output.stdout, /mcp_server:notes-b {2}deny {3}spiffe:\/\/example\.org\/agent/);
    assert.match(output.stdout, /issuer_refused: none of the issuers/);
    assert.match(output.stdout, /untrusted issuer: 0 requests received/);
    // --no-color and a pipe: no escape sequences.
    assert.ok(!output.stdout.includes('\u001b['));
    assert.deepEqual(await readdir(tmp), []);
  });

  it(
    'on SIGINT mid-run stops every process it started, removes its folder and sockets, and exits 130',
    PROC,
    async (t) => {
      const tmp = await privateTmp(t);
      const { child, output, exited } = startDemo(t, tmp);
      const pid = child.pid ?? 0;
      await waitFor('the first scenario', () => output.stdout.includes('━━ 1/4'));
      const started = descendants(pid);
      // The identity provider, authz and three notes servers at least (an agent run may be under way).
      assert.ok(started.length >= 5, `descendants: ${started.join(', ')}`);
      const [folder] = await readdir(tmp);
      assert.match(folder ?? '', /^notegate-demo-/);
      assert.ok((await readdir(join(tmp, folder ?? '', 'sockets'))).includes('agent.sock'));

      child.kill('SIGINT');
      assert.equal(await exited, 130, output.stderr);
      assert.match(output.stderr, /interrupted \(SIGINT\); stopping everything/);
      assert.deepEqual(started.filter(alive), []);
      assert.deepEqual(processesMentioning(tmp), []);
      assert.deepEqual(await readdir(tmp), []);
    },
  );

  it('on SIGINT during start-up also exits 130 and leaves nothing behind', PROC, async (t) => {
    const tmp = await privateTmp(t);
    const { child, output, exited } = startDemo(t, tmp);
    await waitFor('the banner', () => output.stdout.includes('notegate demo'));
    child.kill('SIGINT');
    assert.equal(await exited, 130, output.stderr);
    assert.doesNotMatch(output.stdout, /━━ 1\/4/);
    assert.deepEqual(processesMentioning(tmp), []);
    assert.deepEqual(await readdir(tmp), []);
  });

  it('--keep-running prints agent lines that work as printed, and SIGTERM then stops everything', PROC, async (t) => {
    const tmp = await privateTmp(t);
    const { child, output, exited } = startDemo(t, tmp, '--keep-running');
    await waitFor('the hand-call lines', () => output.stdout.includes('Ctrl-C stops everything'));
    const lines = output.stdout.split('\n').map((line) => line.trim());
    const byEnv = lines.find((line) => line.startsWith('SPIFFE_ENDPOINT_SOCKET=unix://'));
    const refused = lines.find((line) => line.startsWith('npx notegate agent') && line.includes('--steal-token'));
    assert.ok(byEnv && refused, output.stdout);
    // As a user would paste them, with this build's entry point instead of npx.
    const asBuilt = (line: string) => line.replace('npx notegate', `${process.execPath} ${MAIN}`);
    const shell = async (line: string) => {
      const run = await runInGroup(t, 'sh', ['-c', asBuilt(line)]);
      assert.equal(run.code, 0, run.stderr);
      return run;
    };
    const written = await shell(byEnv);
    assert.equal(JSON.parse(written.stdout).structuredContent.created, true);
    const stolen = await shell(refused);
    assert.equal(JSON.parse(stolen.stdout.trim().split('\n')[1] ?? '{}').status, 401);
    // The metrics of the four servers, on loopback: authz counted the tokens it issued.
    const metricsUrls = [...output.stdout.matchAll(/curl -s (http:\/\/127\.0\.0\.1:\d+\/metrics)/g)].map((m) => m[1]);
    assert.equal(metricsUrls.length, 4, output.stdout);
    const authzMetrics = await (await fetch(String(metricsUrls[0]))).text();
    assert.match(
      authzMetrics,
      /^notegate_decisions_total\{component="authz",decision="allow",reason="issued"\} [1-9]/m,
    );

    // The MCP host entry for the proxy, as printed: a host starting it lists notes-a's tools.
    const printed = /\n {2}(\{\n {4}"mcpServers"[\s\S]*?\n {2}\})\n/.exec(output.stdout)?.[1];
    assert.ok(printed, output.stdout);
    const entry = (JSON.parse(printed) as { mcpServers: { notes: { command: string; args: string[] } } }).mcpServers
      .notes;
    const transport = new StdioClientTransport({ command: entry.command, args: entry.args, stderr: 'pipe' });
    const client = new Client({ name: 'demo-host', version: '1.0.0' });
    t.after(() => client.close());
    await client.connect(transport);
    assert.deepEqual(
      (await client.listTools()).tools.map((tool) => tool.name),
      ['notes.read', 'notes.search', 'notes.write'],
    );
    await client.close();

    const running = descendants(child.pid ?? 0);
    child.kill('SIGTERM');
    assert.equal(await exited, 0, output.stderr);
    assert.deepEqual(running.filter(alive), []);
    assert.deepEqual(await readdir(tmp), []);
  });

  it('documents every option with its default under --help, and exits 2 on an unknown option', async () => {
    const help = await runNotegate(['demo', '--help']);
    assert.equal(help.code, 0);
    assertOptionsDocumented(help.stdout, ['--identity', '--spire-layout', '--keep-running', '--verbose', '--no-color']);
    const bad = await runNotegate(['demo', '--fast']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /unknown option --fast/);
    const identity = await runNotegate(['demo', '--identity', 'docker']);
    assert.equal(identity.code, 2);
    assert.match(identity.stderr, /--identity: 'docker' is not allowed \(allowed: development, spire\)/);
  });
});
