import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';
import { refused } from '../../src/agent/agent-errors.js';
import { Relay, type UpstreamPort } from '../../src/proxy/relay.js';
import type { SendOptions } from '../../src/proxy/upstream.js';

interface Sent {
  readonly message: JSONRPCMessage;
  readonly options: SendOptions | undefined;
  resolve(): void;
  reject(err: unknown): void;
}

function harness(timeoutMs = 10_000) {
  const sent: Sent[] = [];
  const written: JSONRPCMessage[] = [];
  const versions: string[] = [];
  const logs: string[] = [];
  const upstream: UpstreamPort = {
    send: (message, options) =>
      new Promise((resolve, reject) => sent.push({ message, options, resolve: () => resolve(), reject })),
    setProtocolVersion: (version) => versions.push(version),
  };
  const relay = new Relay({
    upstream,
    write: (message) => written.push(message),
    log: (line) => logs.push(line),
    timeoutMs,
    context: () => ({ resource: 'http://notes.test/mcp', tokenScope: 'notes:read' }),
  });
  return { relay, sent, written, versions, logs };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));
const request = (id: number | string, method = 'tools/list', params: Record<string, unknown> = {}): JSONRPCMessage => ({
  jsonrpc: '2.0',
  id,
  method,
  params,
});

describe('the relay', () => {
  it('sends a request up unchanged and writes the server answer down unchanged', async () => {
    const h = harness();
    const call = request(1, 'tools/call', { name: 'notes.search', arguments: { query: 'x' } });
    h.relay.fromClient(call);
    assert.deepEqual(h.sent[0]?.message, call);
    const answer: JSONRPCMessage = { jsonrpc: '2.0', id: 1, result: { content: [], extra: { kept: true } } };
    h.relay.fromUpstream(answer);
    assert.deepEqual(h.written, [answer]);
    assert.equal(h.relay.inFlight, 0);
  });

  it('passes notifications both ways and server requests down', () => {
    const h = harness();
    const initialized: JSONRPCMessage = { jsonrpc: '2.0', method: 'notifications/initialized' };
    h.relay.fromClient(initialized);
    assert.deepEqual(h.sent[0]?.message, initialized);
    const progress: JSONRPCMessage = {
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 1, progress: 1 },
    };
    const sampling: JSONRPCMessage = { jsonrpc: '2.0', id: 'srv-1', method: 'sampling/createMessage', params: {} };
    h.relay.fromUpstream(progress);
    h.relay.fromUpstream(sampling);
    assert.deepEqual(h.written, [progress, sampling]);
  });

  it('takes the protocol version an initialize result names for the later requests (2025-11-25)', () => {
    const h = harness();
    h.relay.fromClient(request(1, 'initialize', { protocolVersion: '2025-11-25' }));
    h.relay.fromUpstream({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-11-25', capabilities: {} } });
    assert.deepEqual(h.versions, ['2025-11-25']);
  });

  it('answers a failed request with a JSON-RPC error naming the reason', async () => {
    const h = harness();
    h.relay.fromClient(request(4));
    h.sent[0]?.reject(refused('issuer_selection', 'issuer_refused', 'none of the issuers is trusted'));
    await settle();
    const reply = h.written[0];
    assert.ok(reply && 'error' in reply);
    assert.equal(reply.id, 4);
    assert.equal(reply.error.code, -32000);
    assert.match(
      reply.error.message,
      /^issuer_selection: issuer_refused: none of the issuers is trusted\. Nothing was sent/,
    );
    assert.deepEqual(reply.error.data, { error: 'issuer_refused', step: 'issuer_selection' });
  });

  it("returns the server's own JSON-RPC error from an HTTP error answer unchanged", async () => {
    const h = harness();
    h.relay.fromClient(request(5, 'tools/call', { name: 'nope' }));
    const body = {
      jsonrpc: '2.0',
      id: 5,
      error: { code: -32602, message: 'Unknown tool', data: { error: 'invalid_request' } },
    };
    h.sent[0]?.reject(
      new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, 'Error POSTing', {
        status: 400,
        statusText: 'Bad Request',
        text: JSON.stringify(body),
      }),
    );
    await settle();
    assert.deepEqual(h.written, [body]);
  });

  it('answers a request whose response stream ended without an answer', async () => {
    const h = harness();
    h.relay.fromClient(request(6));
    h.sent[0]?.resolve();
    h.sent[0]?.options?.onStreamEnd?.();
    await settle();
    const reply = h.written[0];
    assert.ok(reply && 'error' in reply);
    assert.equal(reply.error.code, -32603);
    assert.deepEqual(reply.error.data, { error: 'no_answer', step: 'mcp_call' });
  });

  it('answers a request the server does not answer in time, aborts it, and drops a late answer', async () => {
    const h = harness(20);
    h.relay.fromClient(request(7));
    await new Promise((resolve) => setTimeout(resolve, 40));
    const reply = h.written[0];
    assert.ok(reply && 'error' in reply);
    assert.deepEqual(reply.error.data, { error: 'timeout', step: 'mcp_call' });
    assert.equal(h.sent[0]?.options?.signal?.aborted, true);
    h.relay.fromUpstream({ jsonrpc: '2.0', id: 7, result: {} });
    assert.equal(h.written.length, 1);
    assert.match(h.logs.join('\n'), /dropped an answer to request 7/);
  });

  it('on notifications/cancelled aborts the request, forwards the notification and writes no answer', async () => {
    const h = harness();
    h.relay.fromClient(request('c'));
    const cancel: JSONRPCMessage = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'c' } };
    h.relay.fromClient(cancel);
    assert.equal(h.sent[0]?.options?.signal?.aborted, true);
    assert.deepEqual(h.sent[1]?.message, cancel);
    h.sent[0]?.reject(new Error('aborted'));
    await settle();
    assert.deepEqual(h.written, []);
    assert.equal(h.relay.inFlight, 0);
  });

  it('refuses a second request with the id of one still in flight', () => {
    const h = harness();
    h.relay.fromClient(request(8));
    h.relay.fromClient(request(8));
    assert.equal(h.sent.length, 1);
    const reply = h.written[0];
    assert.ok(reply && 'error' in reply);
    assert.equal(reply.error.code, -32600);
  });

  it('reports idle once every request is answered', async () => {
    const h = harness();
    h.relay.fromClient(request(1));
    let idle = false;
    const waiting = h.relay.idle().then(() => {
      idle = true;
    });
    await settle();
    assert.equal(idle, false);
    h.relay.fromUpstream({ jsonrpc: '2.0', id: 1, result: {} });
    await waiting;
    assert.equal(idle, true);
  });
});
