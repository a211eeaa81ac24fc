import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dripHeaders, getAndClose, holdConnection } from '@notegate/kit/testing';
import { CLIENT_TEXT_MAX_CHARS } from '../../../src/shared/clip.js';
import { mcpHeaders, rpc, startNotesServer } from '../../support/notes-server-fixture.js';

describe('the notes server bounds its clients', () => {
  it('cuts a client that drips its headers past the request bound (408), with nothing audited', async (t) => {
    const fixture = await startNotesServer(t, { limits: { requestTimeoutMs: 300 } });
    const reply = await dripHeaders(fixture.base, '/mcp');
    assert.equal(reply.statusLine, 'HTTP/1.1 408 Request Timeout');
    assert.equal(fixture.auditLines.length, 0);
  });

  it('cuts an authenticated client whose MCP body never completes', async (t) => {
    const fixture = await startNotesServer(t, { limits: { requestTimeoutMs: 300 } });
    const token = await fixture.issuer.sign();
    const body = rpc('ping');
    const socket = await holdConnection(fixture.base);
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8');
    });
    const closed = new Promise((resolve) => socket.once('close', resolve));
    const head = Object.entries({ ...mcpHeaders(token), host: fixture.base.host, 'content-length': '1000' })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.write(`POST /mcp HTTP/1.1\r\n${head}\r\n${body}`);
    await closed;
    assert.match(received, /^HTTP\/1\.1 408 /);
  });

  it('answers a request on a connection beyond --max-connections with 503', async (t) => {
    const fixture = await startNotesServer(t, { limits: { maxConnections: 1 } });
    const held = await holdConnection(fixture.base);
    t.after(() => held.destroy());
    const reply = await getAndClose(fixture.base, '/.well-known/oauth-protected-resource/mcp');
    assert.equal(reply.statusLine, 'HTTP/1.1 503 Service Unavailable');
    assert.ok(
      reply.text.endsWith('{"error":"temporarily_unavailable","error_description":"The server is busy; retry later"}'),
    );
  });
});

describe('client text in the audit lines of the notes server', () => {
  it('clips the unverified sub of a token that fails verification to 128 characters', async (t) => {
    const fixture = await startNotesServer(t);
    const sub = `spiffe://example.org/${'a'.repeat(9_000)}`;
    const token = await fixture.issuer.sign({ unpublishedKey: true, claims: { sub } });
    const response = await fetch(fixture.endpoint, { method: 'POST', headers: mcpHeaders(token), body: rpc('ping') });
    assert.equal(response.status, 401);
    assert.equal(fixture.lastAudit().spiffe_id, `unverified:${sub.slice(0, CLIENT_TEXT_MAX_CHARS)}…`);
    assert.ok((fixture.auditLines.at(-1) ?? '').length < 1_000);
  });
});
