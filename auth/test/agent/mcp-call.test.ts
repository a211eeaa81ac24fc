import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { TestContext } from 'node:test';
import { describe, it } from 'node:test';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { closeServer, listen, reservePort } from '@notegate/kit/http';
import { z } from 'zod';
import { AgentError } from '../../src/agent/agent-errors.js';
import { callMcpServer, onlyTo } from '../../src/agent/mcp-call.js';
import { rejectsAt } from '../support/agent-assertions.js';
import { startNotesServer } from '../support/notes-server-fixture.js';
import { ScriptedServer } from '../support/scripted-server.js';
import { notesIn } from '../support/test-engine.js';

/**
 * A server that speaks only revision 2025-11-25 (the v1 SDK, stateless, plain node:http), recording
 * the Authorization and MCP-Protocol-Version headers of every request.
 */
async function legacyOnlyServer(t: TestContext) {
  const seen: { authorization: string | undefined; version: string | undefined }[] = [];
  const server = createServer(async (req, res) => {
    seen.push({ authorization: req.headers.authorization, version: req.headers['mcp-protocol-version']?.toString() });
    const mcp = new McpServer({ name: 'legacy-only', version: '1.0.0' });
    mcp.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({
      content: [{ type: 'text', text }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res);
  });
  const base = await listen(server, '127.0.0.1', 0);
  t.after(() => closeServer(server));
  return { resource: new URL('/mcp', base).href, seen };
}

describe('the MCP call (official SDK client)', () => {
  it('speaks 2026-07-28 to the notes server, with the token as a bearer on every request', async (t) => {
    const fixture = await startNotesServer(t, { realClock: true });
    const token = { accessToken: await fixture.issuer.sign(), resource: fixture.endpoint };
    const written = await callMcpServer({
      token,
      operation: { kind: 'call_tool', name: 'notes.write', arguments: { title: 'Plan', body: 'Rotate the key.' } },
    });
    assert.equal(written.protocolVersion, '2026-07-28');
    const { result } = await callMcpServer({
      token,
      operation: { kind: 'call_tool', name: 'notes.search', arguments: { query: 'rotate' } },
    });
    const content = result.structuredContent as { hits: { title: string }[] };
    assert.deepEqual(
      content.hits.map((hit) => hit.title),
      ['Plan'],
    );
    const listed = await callMcpServer({ token, operation: { kind: 'list_tools' } });
    assert.deepEqual(
      (listed.result.tools as { name: string }[]).map((tool) => tool.name),
      ['notes.read', 'notes.search', 'notes.write'],
    );
    assert.ok(fixture.audit().every((entry) => entry.decision === 'allow'));
  });

  it('falls back to 2025-11-25 when the server only speaks that, still sending the bearer', async (t) => {
    const legacy = await legacyOnlyServer(t);
    const { result, protocolVersion } = await callMcpServer({
      token: { accessToken: 'the-token', resource: legacy.resource },
      operation: { kind: 'call_tool', name: 'echo', arguments: { text: 'hello' } },
    });
    assert.equal(protocolVersion, '2025-11-25');
    assert.deepEqual(result.content, [{ type: 'text', text: 'hello' }]);
    assert.ok(legacy.seen.length >= 3);
    assert.ok(legacy.seen.every((request) => request.authorization === 'Bearer the-token'));
    assert.ok(legacy.seen.some((request) => request.version === '2025-11-25'));
  });

  it('reports a 403 insufficient_scope as a refusal naming the scope the call needs', async (t) => {
    const fixture = await startNotesServer(t, { realClock: true });
    const accessToken = await fixture.issuer.sign({ claims: { scope: 'notes:read' } });
    const err = await rejectsAt(
      callMcpServer({
        token: { accessToken, resource: fixture.endpoint },
        operation: { kind: 'call_tool', name: 'notes.write', arguments: { title: 't', body: 'b' } },
      }),
      'mcp_call',
      'insufficient_scope',
      'refused',
    );
    assert.match(
      err.message,
      /HTTP 403 .*needs scope "notes:write"; WWW-Authenticate: Bearer error="insufficient_scope"/,
    );
    assert.deepEqual(notesIn(fixture.notesDir), []);
  });

  it('reports a 401 with the challenge as an authentication failure', async (t) => {
    const fixture = await startNotesServer(t, { realClock: true });
    const accessToken = await fixture.issuer.sign({ claims: { aud: 'http://127.0.0.1:1/mcp' } });
    const err = await rejectsAt(
      callMcpServer({ token: { accessToken, resource: fixture.endpoint }, operation: { kind: 'list_tools' } }),
      'mcp_call',
      'invalid_token',
      'authentication',
    );
    assert.match(
      err.message,
      /HTTP 401 .*WWW-Authenticate: Bearer error="invalid_token", scope="notes:read notes:write", resource_metadata="/,
    );
  });

  it('reports a JSON-RPC refusal (unknown tool) with the OAuth code of its data', async (t) => {
    const fixture = await startNotesServer(t, { realClock: true });
    const token = { accessToken: await fixture.issuer.sign(), resource: fixture.endpoint };
    const err = await rejectsAt(
      callMcpServer({ token, operation: { kind: 'call_tool', name: 'notes.delete', arguments: {} } }),
      'mcp_call',
      'invalid_request',
      'refused',
    );
    assert.match(err.message, /HTTP 400 .*JSON-RPC error -32602/);
  });

  it('reports a server that is not there as a transport failure', async () => {
    const port = await reservePort();
    await rejectsAt(
      callMcpServer({
        token: { accessToken: 't', resource: `http://127.0.0.1:${port}/mcp` },
        operation: { kind: 'list_tools' },
        timeoutMs: 2_000,
      }),
      'mcp_call',
      'connection_failed',
      'transport',
    );
  });

  it('does not follow a redirect of the MCP endpoint, so the token never reaches the target', async (t) => {
    const target = await ScriptedServer.start(t);
    const redirecting = await ScriptedServer.start(t);
    redirecting.on('/mcp', (_req, res) => res.writeHead(307, { location: target.at('/mcp') }).end());
    await rejectsAt(
      callMcpServer({
        token: { accessToken: 't', resource: redirecting.at('/mcp') },
        operation: { kind: 'list_tools' },
      }),
      'mcp_call',
      'redirect_refused',
      'transport',
    );
    assert.equal(target.requests.length, 0);
  });

  it('refuses to send the token to any URL but its resource', async () => {
    let called = 0;
    const guarded = onlyTo(
      'http://127.0.0.1:8081/mcp',
      async () => {
        called += 1;
        return new Response('{}', { status: 200 });
      },
      () => undefined,
    );
    const others = [
      'http://127.0.0.1:8082/mcp',
      'http://127.0.0.1:8081/other',
      'http://127.0.0.1:8081/mcp/x',
      'http://127.0.0.1:8081/mcp//',
      'http://127.0.0.1:8081/MCP',
      'http://127.0.0.1:8081/mcp?x=1',
      'http://localhost:8081/mcp',
      'https://127.0.0.1:8081/mcp',
    ];
    for (const url of others) {
      await assert.rejects(
        guarded(url, {}),
        (err) => err instanceof AgentError && err.reason === 'token_destination_refused',
      );
    }
    assert.equal(called, 0);
    // The same resource in other spellings (docs/protocol.md#identifiers).
    await guarded(new URL('HTTP://127.0.0.1:8081/mcp'), {});
    await guarded('http://127.0.0.1:8081/mcp/', {});
    assert.equal(called, 2);
  });
});
