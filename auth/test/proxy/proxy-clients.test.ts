import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { Client, ProtocolError } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { MCP_HOSTS } from '@notegate/kit';
import { mcpInspectorCli } from '@notegate/kit/testing';
import { type AgentStack, startAgentStack } from '../support/agent-stack.js';
import { readAuditFile } from '../support/audit-file.js';
import { Cleanups } from '../support/cleanups.js';
import { MAIN, runNotegate } from '../support/cli-process.js';
import { JWT_PATTERN, ProxyProcess } from '../support/proxy-process.js';

const INSPECTOR = mcpInspectorCli();
const NEEDS_INSPECTOR = { skip: INSPECTOR.skip };

interface ToolsAnswer {
  readonly tools: readonly { readonly name: string }[];
}

/**
 * The MCP clients people use, each starting `notegate proxy` as its stdio server, against a real notes
 * server behind a real authz and the development identity provider: the official SDK v2 client (both
 * revisions), the SDK v1 client and the MCP Inspector CLI.
 */
describe('notegate proxy under real MCP clients', () => {
  const cleanups = new Cleanups();
  let stack: AgentStack;
  let dir: string;
  before(async () => {
    stack = await startAgentStack(cleanups);
    dir = await mkdtemp(join(tmpdir(), 'notegate-proxy-clients-'));
    cleanups.after(() => rm(dir, { recursive: true, force: true }));
  });
  after(() => cleanups.run());

  const proxyArgs = (resource: string, ...extra: string[]) => [MAIN, 'proxy', ...stack.targetArgs(resource), ...extra];

  /** An SDK v2 client over stdio; `stderr` of the proxy is kept for the assertions. */
  async function v2Client(mode: 'auto' | 'legacy', args: string[]) {
    const transport = new StdioClientTransport({ command: process.execPath, args, stderr: 'pipe' });
    const stderr: string[] = [];
    transport.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
    const client = new Client({ name: 'proxy-test-v2', version: '1.0.0' }, { versionNegotiation: { mode } });
    cleanups.after(() => client.close());
    await client.connect(transport);
    return { client, stderr };
  }

  for (const mode of ['auto', 'legacy'] as const) {
    const revision = mode === 'auto' ? '2026-07-28' : '2025-11-25';
    it(`SDK v2 client, revision ${revision}: lists the tools, writes a note and finds it`, async () => {
      const { client, stderr } = await v2Client(mode, proxyArgs(stack.notesA.resource));
      assert.equal(client.getNegotiatedProtocolVersion(), revision);
      const tools = await client.listTools();
      assert.deepEqual(
        tools.tools.map((tool) => tool.name),
        ['notes.read', 'notes.search', 'notes.write'],
      );
      const title = `Rotation ${mode}`;
      const written = await client.callTool({ name: 'notes.write', arguments: { title, body: `keys ${mode}` } });
      const { path } = written.structuredContent as { path: string };
      const found = await client.callTool({ name: 'notes.search', arguments: { query: title } });
      const hits = (found.structuredContent as { hits: { path: string }[] }).hits;
      assert.equal(hits[0]?.path, path);
      await client.close();
      assert.doesNotMatch(stderr.join(''), JWT_PATTERN, 'no token in the logs');
    });
  }

  for (const host of MCP_HOSTS) {
    it(`--print-config ${host}: the printed entry starts a proxy that serves the tools`, async () => {
      const printed = await runNotegate([
        'proxy',
        '--print-config',
        host,
        ...stack.targetArgs(stack.notesA.resource),
        '--scope',
        'notes:read',
      ]);
      assert.equal(printed.code, 0, printed.stderr);
      const json = JSON.parse(printed.stdout) as Record<string, Record<string, { command: string; args: string[] }>>;
      const entry = (host === 'vscode' ? json.servers : json.mcpServers)?.notes;
      assert.ok(entry, printed.stdout);
      assert.equal(entry.command, process.execPath);
      assert.deepEqual(entry.args.slice(1), [
        'proxy',
        ...stack.targetArgs(stack.notesA.resource),
        '--scope',
        'notes:read',
      ]);
      assert.ok(isAbsolute(entry.args[0] ?? ''));
      // Started as a host starts it, without the test's environment.
      const transport = new StdioClientTransport({ command: entry.command, args: entry.args, stderr: 'pipe' });
      const client = new Client({ name: 'proxy-test-host', version: '1.0.0' });
      cleanups.after(() => client.close());
      await client.connect(transport);
      assert.deepEqual(
        (await client.listTools()).tools.map((tool) => tool.name),
        ['notes.read', 'notes.search'],
      );
      await client.close();
    });
  }

  it('SDK v1 client (2025-11-25): lists the tools and calls notes.search', async () => {
    const transport = new V1StdioClientTransport({
      command: process.execPath,
      args: proxyArgs(stack.notesA.resource),
      stderr: 'pipe',
    });
    const client = new V1Client({ name: 'proxy-test-v1', version: '1.0.0' });
    cleanups.after(() => client.close());
    await client.connect(transport);
    const tools = await client.listTools();
    assert.deepEqual(
      tools.tools.map((tool) => tool.name),
      ['notes.read', 'notes.search', 'notes.write'],
    );
    const found = await client.callTool({ name: 'notes.search', arguments: { query: 'anything' } });
    assert.ok(Array.isArray((found.structuredContent as { hits: unknown[] }).hits));
    assert.equal(found.isError, undefined);
    await client.close();
  });

  it('a notes:read identity sees only notes.read and notes.search, and notes.write gets an error naming notes:write', async () => {
    const { client } = await v2Client('auto', proxyArgs(stack.notesA.resource, '--scope', 'notes:read'));
    const tools = await client.listTools();
    assert.deepEqual(
      tools.tools.map((tool) => tool.name),
      ['notes.read', 'notes.search'],
    );
    const err = await client.callTool({ name: 'notes.write', arguments: { title: 't', body: 'b' } }).then(
      () => assert.fail('notes.write succeeded'),
      (caught: unknown) => caught,
    );
    assert.ok(err instanceof ProtocolError, String(err));
    assert.equal(err.code, -32000);
    assert.match(err.message, /insufficient_scope: .*needs scope "notes:write"/);
    assert.match(err.message, /token carries scope "notes:read"/);
    assert.match(err.message, /--scope/);
    assert.deepEqual(err.data, { error: 'insufficient_scope', step: 'mcp_call' });
  });

  it('an untrusted issuer is refused: a clear error, audit lines, and not one request reaches it', async () => {
    const issuerRequests = stack.issuerProxy.requests;
    const minted = stack.provider.svidsMinted;
    const auditLog = join(dir, 'untrusted.audit.jsonl');
    const proxy = ProxyProcess.start(cleanups, [
      ...stack.targetArgs(stack.notesA.resource, { trustedIssuer: 'http://127.0.0.1:1/elsewhere' }),
      '--audit-log',
      auditLog,
    ]);
    const answer = await proxy.initialize();
    assert.equal(answer.error?.code, -32000);
    assert.match(answer.error?.message ?? '', /^issuer_selection: issuer_refused: none of the issuers/);
    assert.deepEqual(answer.error?.data, { error: 'issuer_refused', step: 'issuer_selection' });
    proxy.closeStdin();
    assert.equal(await proxy.exited, 0);
    assert.equal(stack.issuerProxy.requests - issuerRequests, 0, 'requests that reached the refused issuer');
    assert.equal(stack.provider.svidsMinted - minted, 0, 'SVIDs minted');
    const lines = await readAuditFile(auditLog);
    assert.ok(
      lines.some(
        (line) => line.component === 'agent' && line.decision === 'deny' && /^issuer_refused/.test(String(line.reason)),
      ),
    );
    assert.ok(
      lines.some(
        (line) => line.component === 'proxy' && line.decision === 'deny' && /^issuer_refused/.test(String(line.reason)),
      ),
    );
  });

  const inspector = (...args: string[]) =>
    promisify(execFile)(
      process.execPath,
      [INSPECTOR.cli, '--cli', ...args, '--', ...[process.execPath, ...proxyArgs(stack.notesA.resource)]],
      {
        // The CLI keeps a catalog under HOME; keep it out of the real one.
        env: { ...process.env, HOME: dir },
        timeout: 60_000,
      },
    );

  for (const era of ['legacy', 'modern'] as const) {
    it(`MCP Inspector CLI (${era} era): tools/list and tools/call notes.search`, NEEDS_INSPECTOR, async () => {
      const listed = await inspector('--protocol-era', era, '--method', 'tools/list');
      const tools = JSON.parse(listed.stdout) as ToolsAnswer;
      assert.deepEqual(
        tools.tools.map((tool) => tool.name),
        ['notes.read', 'notes.search', 'notes.write'],
      );
      const called = await inspector(
        '--protocol-era',
        era,
        '--method',
        'tools/call',
        '--tool-name',
        'notes.search',
        '--tool-arg',
        'query=rotation',
      );
      const result = JSON.parse(called.stdout) as { structuredContent: { hits: unknown[] } };
      assert.ok(Array.isArray(result.structuredContent.hits));
      assert.doesNotMatch(listed.stderr + called.stderr, JWT_PATTERN);
    });
  }
});
