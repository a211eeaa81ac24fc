import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { reservePort, sendJson } from '@notegate/kit/http';
import { waitFor } from '@notegate/kit/testing';
import { type AgentStack, startAgentStack } from '../support/agent-stack.js';
import { readAuditFile } from '../support/audit-file.js';
import { Cleanups } from '../support/cleanups.js';
import { JWT_PATTERN, ProxyProcess } from '../support/proxy-process.js';
import { ScriptedServer } from '../support/scripted-server.js';

/**
 * notegate proxy as a process, spoken to line by line, when things go wrong: bad input from the
 * client, and every part it depends on missing or broken. Each case ends in a JSON-RPC error or a
 * clean exit with a message on stderr, never a hang, and never a token on stdout, stderr or in audit.
 */
describe('notegate proxy faults', () => {
  const cleanups = new Cleanups();
  let stack: AgentStack;
  let dir: string;
  before(async () => {
    stack = await startAgentStack(cleanups);
    dir = await mkdtemp(join(tmpdir(), 'notegate-proxy-faults-'));
    cleanups.after(() => rm(dir, { recursive: true, force: true }));
  });
  after(() => cleanups.run());

  let audits = 0;
  function proxyFor(
    resource: string,
    options: { workloadApi?: string; trustedIssuer?: string; timeoutS?: number } = {},
  ) {
    const auditLog = join(dir, `audit-${++audits}.jsonl`);
    const proxy = ProxyProcess.start(cleanups, [
      ...stack.targetArgs(resource, options),
      '--audit-log',
      auditLog,
      '--timeout',
      String(options.timeoutS ?? 5),
    ]);
    return { proxy, auditLines: () => readAuditFile(auditLog), auditLog };
  }

  async function assertNoTokenAnywhere(proxy: ProxyProcess, auditLog: string): Promise<void> {
    assert.doesNotMatch(proxy.output.stdout, JWT_PATTERN, 'no token on stdout');
    assert.doesNotMatch(proxy.output.stderr, JWT_PATTERN, 'no token on stderr');
    assert.doesNotMatch(await readFile(auditLog, 'utf8').catch(() => ''), JWT_PATTERN, 'no token in the audit log');
  }

  it('answers garbage on stdin with -32700 and -32600 and keeps serving', async () => {
    const { proxy, auditLog } = proxyFor(stack.notesA.resource);
    proxy.writeLine('this is not JSON');
    proxy.writeLine('{"jsonrpc":"2.0","id":41}');
    proxy.writeLine('[{"jsonrpc":"2.0","id":42,"method":"ping"}]');
    proxy.writeLine('');
    const answer = await proxy.initialize();
    assert.equal((answer.result as { protocolVersion: string }).protocolVersion, '2025-11-25');
    const [parseError, noMethod, batch] = proxy.messages;
    assert.equal(parseError?.error?.code, -32700);
    assert.equal('id' in (parseError ?? {}), false);
    assert.equal(noMethod?.error?.code, -32600);
    assert.equal(noMethod?.id, 41);
    assert.equal(batch?.error?.code, -32600);
    const listed = await proxy.request('tools/list');
    assert.equal((listed.result as { tools: unknown[] }).tools.length, 3);
    await assertNoTokenAnywhere(proxy, auditLog);
  });

  it('exits 0 with a line on stderr once stdin is closed', async () => {
    const { proxy } = proxyFor(stack.notesA.resource);
    await proxy.initialize();
    proxy.closeStdin();
    assert.equal(await proxy.exited, 0);
    assert.match(proxy.output.stderr, /notegate proxy: stdin closed; stopping/);
  });

  it('exits 0 on SIGTERM with stdin still open', async () => {
    const { proxy } = proxyFor(stack.notesA.resource);
    await proxy.initialize();
    proxy.child.kill('SIGTERM');
    assert.equal(await proxy.exited, 0);
    assert.match(proxy.output.stderr, /notegate proxy: stop requested; stopping/);
  });

  it('answers a request still in flight when stdin closes, then exits', async () => {
    const slow = await ScriptedServer.start(cleanups, stack.spare.port);
    slow.json('/.well-known/oauth-protected-resource/mcp', {
      resource: stack.spare.resource,
      authorization_servers: [stack.issuer],
      scopes_supported: ['notes:read'],
    });
    slow.on('/mcp', (_req, res) => {
      setTimeout(() => sendJson(res, 200, { jsonrpc: '2.0', id: 1, result: {} }), 200);
    });
    const { proxy } = proxyFor(stack.spare.resource);
    proxy.writeLine(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    proxy.closeStdin();
    assert.equal(await proxy.exited, 0);
    assert.deepEqual(proxy.messages, [{ jsonrpc: '2.0', id: 1, result: {} }]);
    await slow.close();
  });

  it('exits once stdin closes even while authz hangs on a token fetch, cutting that fetch off', async () => {
    const hung = await ScriptedServer.start(cleanups);
    let cutOff = false;
    hung.on('/.well-known/oauth-authorization-server', (req) => {
      req.socket.once('close', () => {
        cutOff = true;
      });
    });
    const resource = await ScriptedServer.start(cleanups);
    resource.json('/.well-known/oauth-protected-resource/mcp', {
      resource: resource.at('/mcp'),
      authorization_servers: [hung.url.origin],
      scopes_supported: ['notes:read'],
    });
    // A 300 s timeout: only the cut-off lets the process end within the test.
    const { proxy } = proxyFor(resource.at('/mcp'), { trustedIssuer: hung.url.origin, timeoutS: 300 });
    proxy.writeLine(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    await waitFor('the hung metadata request', () => hung.requests.length > 0);
    proxy.closeStdin();
    assert.equal(await proxy.exited, 0);
    await waitFor('the hung request to be cut off', () => cutOff);
  });

  it('without a Workload API socket: a JSON-RPC error naming the SVID step, an audit line, and it keeps serving', async () => {
    const { proxy, auditLines, auditLog } = proxyFor(stack.notesA.resource, {
      workloadApi: `unix://${join(dir, 'no-such.sock')}`,
    });
    const answer = await proxy.initialize();
    assert.equal(answer.error?.code, -32603);
    assert.match(answer.error?.message ?? '', /^svid: workload_api_unavailable: /);
    assert.equal(answer.error?.data?.step, 'svid');
    const again = await proxy.request('tools/list');
    assert.equal(again.error?.data?.step, 'svid', 'the next request tries again and is answered too');
    assert.ok((await auditLines()).some((line) => line.component === 'proxy' && line.decision === 'deny'));
    assert.match(proxy.output.stderr, /cannot get an access token: svid: workload_api_unavailable/);
    await assertNoTokenAnywhere(proxy, auditLog);
  });

  it('when the authorization server is down: a JSON-RPC error naming its metadata step', async () => {
    const deadIssuer = `http://127.0.0.1:${await reservePort()}`;
    const resource = await ScriptedServer.start(cleanups);
    resource.json('/.well-known/oauth-protected-resource/mcp', {
      resource: resource.at('/mcp'),
      authorization_servers: [deadIssuer],
      scopes_supported: ['notes:read'],
    });
    const { proxy } = proxyFor(resource.at('/mcp'), { trustedIssuer: deadIssuer });
    const answer = await proxy.request('ping');
    assert.equal(answer.error?.code, -32603);
    assert.match(
      answer.error?.message ?? '',
      /^authorization_server_metadata: connection_failed: GET http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-authorization-server failed: ECONNREFUSED/,
    );
    assert.equal(resource.requests.filter((r) => r.path === '/mcp').length, 0, 'nothing sent upstream without a token');
  });

  it('when the notes server is down: a JSON-RPC error naming its metadata', async () => {
    const resource = `http://127.0.0.1:${await reservePort()}/mcp`;
    const { proxy } = proxyFor(resource);
    const answer = await proxy.request('tools/list');
    assert.match(answer.error?.message ?? '', /^protected_resource_metadata: connection_failed: .*ECONNREFUSED/);
  });

  it('while the notes server restarts: errors while it is down, then it serves again with the same token', async () => {
    let notes = await stack.startSpare(cleanups, 'notes-d');
    const { proxy } = proxyFor(stack.spare.resource);
    await proxy.initialize();
    assert.ok((await proxy.request('tools/list')).result);
    await notes.stop();
    const down = await proxy.request('tools/list');
    assert.equal(down.error?.code, -32603);
    assert.match(down.error?.message ?? '', /^mcp_call: connection_failed: .*ECONNREFUSED/);
    notes = await stack.startSpare(cleanups, 'notes-d');
    const back = await proxy.request('tools/list');
    assert.equal((back.result as { tools: unknown[] }).tools.length, 3);
    const jtis = new Set(notes.auditLines.map((line) => JSON.parse(line).token_jti).filter(Boolean));
    assert.equal(jtis.size, 1);
    await notes.stop();
  });

  const malformed: [string, (res: import('node:http').ServerResponse) => void, RegExp][] = [
    [
      'a body that is not JSON',
      (res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"jsonrpc":');
      },
      /^mcp_call: malformed_response: /,
    ],
    ['JSON that is not JSON-RPC', (res) => sendJson(res, 200, { hello: 'world' }), /^mcp_call: malformed_response: /],
    [
      'an HTML page',
      (res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html>oops</html>');
      },
      /^mcp_call: malformed_response: .*text\/html/,
    ],
    [
      'an event stream that ends without an answer',
      (res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end('event: message\ndata: not json\n\n');
      },
      /^mcp_call: no_answer: /,
    ],
    ['a 502 from a gateway', (res) => sendJson(res, 502, { error: 'bad gateway' }), /^mcp_call: http_502: /],
  ];
  for (const [what, answer, expected] of malformed) {
    it(`answers a malformed upstream response (${what}) with a JSON-RPC error and keeps serving`, async () => {
      const upstream = await ScriptedServer.start(cleanups, stack.spare.port);
      upstream.json('/.well-known/oauth-protected-resource/mcp', {
        resource: stack.spare.resource,
        authorization_servers: [stack.issuer],
        scopes_supported: ['notes:read'],
      });
      let broken = true;
      upstream.on('/mcp', (req, res) => {
        if (broken) return answer(res);
        const id = JSON.parse(upstream.requests.at(-1)?.body ?? '{}').id;
        sendJson(res, 200, { jsonrpc: '2.0', id, result: {} });
        void req;
      });
      const { proxy, auditLog } = proxyFor(stack.spare.resource);
      const reply = await proxy.request('ping');
      assert.ok(reply.error, JSON.stringify(reply));
      assert.match(reply.error.message, expected);
      broken = false;
      assert.deepEqual((await proxy.request('ping')).result, {});
      await assertNoTokenAnywhere(proxy, auditLog);
      await upstream.close();
    });
  }
});

describe('notegate proxy with an identity provider that hands out expired SVIDs', () => {
  const cleanups = new Cleanups();
  let stack: AgentStack;
  before(async () => {
    // SVIDs of 300 s minted 400 s in the past: expired beyond authz's 30 s leeway when they arrive.
    stack = await startAgentStack(cleanups, { providerClock: () => Date.now() - 400_000 });
  });
  after(() => cleanups.run());

  it('answers with the token endpoint refusal (invalid_client) and sends nothing upstream', async () => {
    const proxy = ProxyProcess.start(cleanups, stack.targetArgs(stack.notesA.resource));
    const answer = await proxy.request('tools/list');
    assert.equal(answer.error?.code, -32000);
    assert.match(answer.error?.message ?? '', /^token_request: invalid_client: HTTP 401 from POST /);
    assert.equal(stack.notesA.auditLines.length, 0, 'the notes server saw no request');
    assert.ok(stack.authzAudit.some((line) => /expired/i.test(JSON.parse(line).reason)));
    assert.doesNotMatch(proxy.output.stderr + proxy.output.stdout, JWT_PATTERN);
  });
});
