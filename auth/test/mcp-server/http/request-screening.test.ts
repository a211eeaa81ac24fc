import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { BODY_LIMIT_BYTES } from '../../../src/mcp-server/request/header-screening.js';
import {
  mcpHeaders,
  type NotesServerFixture,
  rpc,
  startNotesServer,
  toolCall,
} from '../../support/notes-server-fixture.js';
import { notesIn } from '../../support/test-engine.js';

async function post(fixture: NotesServerFixture, body: string, headers: Record<string, string>): Promise<Response> {
  return fetch(fixture.endpoint, { method: 'POST', headers, body });
}

/** Streams `totalBytes` with chunked encoding (no Content-Length) and reports what the server answered. */
function streamBody(url: string, headers: Record<string, string>, totalBytes: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', (err: NodeJS.ErrnoException) =>
      err.code === 'EPIPE' || err.code === 'ECONNRESET' ? undefined : reject(err),
    );
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let sent = 0;
    const pump = () => {
      while (sent < totalBytes) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

describe('request limits and bad input on the MCP endpoint', () => {
  it('answers a declared body over 1 MiB with 413 before reading it, even without a token', async (t) => {
    const fixture = await startNotesServer(t);
    const big = 'x'.repeat(2 * BODY_LIMIT_BYTES);
    const response = await post(fixture, big, mcpHeaders());
    assert.equal(response.status, 413);
    assert.deepEqual(await response.json(), {
      error: 'invalid_request',
      error_description: 'The request body exceeds 1 MiB',
    });
    assert.equal(response.headers.get('connection'), 'close');
    assert.match(fixture.lastAudit().reason, /^invalid_request: The request body exceeds 1 MiB \(declared/);
    assert.equal(fixture.lastAudit().decision, 'deny');
  });

  it('stops a streamed body at 1 MiB with 413', async (t) => {
    const fixture = await startNotesServer(t);
    const status = await streamBody(fixture.endpoint, mcpHeaders(await fixture.issuer.sign()), 3 * BODY_LIMIT_BYTES);
    assert.equal(status, 413);
    assert.match(fixture.lastAudit().reason, /streamed body passed 1 MiB/);
    // The token is checked before the body is read.
    assert.equal(fixture.lastAudit().spiffe_id, 'spiffe://example.org/agent');
  });

  it('accepts a body of exactly 1 MiB', async (t) => {
    const fixture = await startNotesServer(t);
    const filler = 'a'.repeat(BODY_LIMIT_BYTES - toolCall('notes.search', { query: '' }).length);
    const body = toolCall('notes.search', { query: filler.slice(0, 100) }).padEnd(BODY_LIMIT_BYTES, ' ');
    assert.equal(Buffer.byteLength(body), BODY_LIMIT_BYTES);
    const response = await post(fixture, body, mcpHeaders(await fixture.issuer.sign()));
    assert.equal(response.status, 200);
  });

  const badBodies: [string, string, RegExp, number | null][] = [
    ['a body that is not JSON', '{"jsonrpc":', /not valid JSON/, null],
    ['an empty body', '', /not valid JSON/, null],
    ['a JSON array (batch)', JSON.stringify([JSON.parse(rpc('ping'))]), /batches are not accepted/, null],
    ['a JSON value that is not an object', '"ping"', /not a JSON-RPC request/, null],
    ['an object without jsonrpc 2.0', JSON.stringify({ id: 1, method: 'ping' }), /not a JSON-RPC request/, null],
    ['a JSON-RPC response', JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} }), /not a JSON-RPC request/, null],
    ['a null id', JSON.stringify({ jsonrpc: '2.0', id: null, method: 'ping' }), /not a JSON-RPC request/, null],
    ['a tools/call without a tool name', rpc('tools/call', 5, { arguments: {} }), /must name a tool/, 5],
    ['a tools/call with an empty tool name', rpc('tools/call', 6, { name: '' }), /must name a tool/, 6],
  ];
  for (const [what, body, reason, id] of badBodies) {
    it(`answers ${what} with 400 invalid_request`, async (t) => {
      const fixture = await startNotesServer(t);
      const response = await post(fixture, body, mcpHeaders(await fixture.issuer.sign()));
      assert.equal(response.status, 400);
      const json = (await response.json()) as Record<string, unknown>;
      if (id === null) {
        assert.equal(json.error, 'invalid_request');
      } else {
        assert.equal(json.id, id);
        assert.deepEqual((json.error as { data: unknown }).data, {
          error: 'invalid_request',
          error_description: 'A tools/call request must name a tool',
        });
      }
      assert.match(fixture.lastAudit().reason, reason);
    });
  }

  it('answers an unknown tool with 400 invalid_request, but only to an authenticated caller', async (t) => {
    const fixture = await startNotesServer(t);
    const anonymous = await post(fixture, toolCall('notes.delete', {}, 3), mcpHeaders());
    assert.equal(anonymous.status, 401, 'tool names are not revealed before authentication');
    const response = await post(fixture, toolCall('notes.delete', {}, 3), mcpHeaders(await fixture.issuer.sign()));
    assert.equal(response.status, 400);
    const json = (await response.json()) as { id: number; error: { code: number; data: { error: string } } };
    assert.equal(json.id, 3);
    assert.equal(json.error.code, -32602);
    assert.equal(json.error.data.error, 'invalid_request');
    assert.equal(fixture.lastAudit().tool, 'notes.delete');
  });

  const badArguments: [string, unknown][] = [
    ['an empty query', { query: '' }],
    ['a query over 1000 characters', { query: 'q'.repeat(1001) }],
    ['a query over 64 words', { query: 'word '.repeat(65) }],
    ['a top of 0', { query: 'x', top: 0 }],
    ['a top of 51', { query: 'x', top: 51 }],
    ['a fractional top', { query: 'x', top: 2.5 }],
    ['an unknown mode', { query: 'x', mode: 'fuzzy' }],
    ['a hybrid search of a lexical-only index', { query: 'x', mode: 'hybrid' }],
    ['an empty namespace list', { query: 'x', namespaces: [] }],
    ['an unknown argument', { query: 'x', path: '../etc/passwd' }],
    ['no arguments', undefined],
  ];
  for (const [what, args] of badArguments) {
    it(`answers notes.search with ${what} with a JSON-RPC invalid-params error`, async (t) => {
      const fixture = await startNotesServer(t);
      const response = await post(fixture, toolCall('notes.search', args, 9), mcpHeaders(await fixture.issuer.sign()));
      assert.equal(response.status, 200, 'in-band, as the SDK answers invalid params');
      const json = (await response.json()) as { id: number; error: { code: number } };
      assert.equal(json.id, 9);
      assert.equal(json.error.code, -32602);
      assert.equal(fixture.lastAudit().decision, 'deny');
    });
  }

  it('refuses notes.write paths out of the vault, punctuation-only titles and bodies over 256 KiB, writing nothing', async (t) => {
    const fixture = await startNotesServer(t);
    const outside = mkdtempSync(join(tmpdir(), 'outside-'));
    t.after(() => rmSync(outside, { recursive: true, force: true }));
    symlinkSync(outside, join(fixture.notesDir, 'linked'));
    symlinkSync(join(outside, 'x.md'), join(fixture.notesDir, 'link.md'));
    const token = await fixture.issuer.sign();
    const refusals: [Record<string, unknown>, RegExp][] = [
      [{ title: 't', body: 'b', path: '../escape.md' }, /^The path must name/],
      [{ title: 't', body: 'b', path: 'a/../../escape.md' }, /^The path must name/],
      [{ title: 't', body: 'b', path: join(outside, 'abs.md') }, /^The path must name/],
      [{ title: 't', body: 'b', path: 'linked/escape.md' }, /^The path must name/],
      [{ title: 't', body: 'b', path: 'linked/new/escape.md' }, /^The path must name/],
      [{ title: 't', body: 'b', path: 'link.md' }, /^The path must name/],
      [{ title: 't', body: 'b', path: '.hidden/x.md' }, /^The path must name/],
      [{ title: 't', body: 'b', path: 'notes.txt' }, /^The path must name/],
      [{ title: 't', body: 'b', path: 'c1\u0085next-line.md' }, /^The path must name/],
      [{ title: 't', body: 'b', path: 'invoice\u202egpj.md' }, /^The path must name/],
      [{ title: 't', body: 'b', path: 'lone\ud800.md' }, /^The path must name/],
      [{ title: '?!…—', body: 'b' }, /^The title must contain/],
      [{ title: 't', body: 'é'.repeat(128 * 1024 + 1) }, /^The note body exceeds 256 KiB/],
      [{ title: '', body: 'b' }, /^The tool arguments/],
      [{ title: 't'.repeat(201), body: 'b' }, /^The tool arguments/],
      [{ title: 't', body: 'b', id: 'ABCDEF0123456789abcdef01' }, /^The tool arguments/],
    ];
    for (const [args, message] of refusals) {
      const response = await post(fixture, toolCall('notes.write', args), mcpHeaders(token));
      assert.equal(response.status, 200, 'in-band');
      const json = (await response.json()) as { error?: { code: number; message: string } };
      assert.equal(json.error?.code, -32602, JSON.stringify(args).slice(0, 60));
      assert.match(json.error?.message ?? '', message);
      assert.equal(fixture.lastAudit().decision, 'deny');
    }
    assert.match(fixture.lastAudit().reason, /^invalid_request: The tool arguments/);
    assert.deepEqual(readdirSync(outside), [], 'nothing written outside the vault');
    assert.deepEqual(
      notesIn(fixture.notesDir),
      ['link.md'],
      'nothing written inside it either (link.md is the planted link)',
    );
  });

  it('serves notes.read under notes:read: a note by vault and path, a line range, refusals audited', async (t) => {
    const fixture = await startNotesServer(t);
    const outside = mkdtempSync(join(tmpdir(), 'outside-'));
    t.after(() => rmSync(outside, { recursive: true, force: true }));
    writeFileSync(join(outside, 'secret.md'), '# Secret\n');
    symlinkSync(join(outside, 'secret.md'), join(fixture.notesDir, 'secret.md'));
    writeFileSync(join(fixture.notesDir, 'plan.md'), '# Plan\n\nrotate the keys\nthen check\n');
    const token = await fixture.issuer.sign({ claims: { scope: 'notes:read' } });
    const read = async (args: Record<string, unknown>) => {
      const response = await post(fixture, toolCall('notes.read', args), mcpHeaders(token));
      assert.equal(response.status, 200, 'in-band');
      return (await response.json()) as {
        result?: { structuredContent: Record<string, unknown> };
        error?: { code: number; message: string };
      };
    };
    const whole = await read({ vault: 'notes', path: 'plan.md' });
    assert.deepEqual(whole.result?.structuredContent, {
      vault: 'notes',
      path: 'plan.md',
      line_start: 1,
      line_end: 4,
      total_lines: 4,
      truncated: false,
      text: '# Plan\n\nrotate the keys\nthen check',
    });
    assert.equal(fixture.lastAudit().decision, 'allow');
    const lines = await read({ vault: 'notes', path: 'plan.md', line_start: 3, line_end: 9 });
    assert.deepEqual(
      [lines.result?.structuredContent.text, lines.result?.structuredContent.line_end],
      ['rotate the keys\nthen check', 4],
    );
    const refusals: [Record<string, unknown>, string, RegExp][] = [
      [{ vault: 'notes', path: '../escape.md' }, 'The path must name a markdown file', /path has a '\.\.' segment/],
      [{ vault: 'notes', path: 'secret.md' }, 'The path must name a markdown file', /outside the vault/],
      [{ vault: 'notes', path: '.obsidian/x.md' }, 'The path must name a markdown file', /hidden segment/],
      [{ vault: 'notes', path: 'gone.md' }, 'There is no note at that path in that vault', /no file at gone\.md/],
      [{ vault: 'other', path: 'plan.md' }, 'The vault is not one of the vaults of this server', /vault other/],
      [
        { vault: 'notes', path: 'plan.md', line_start: 9 },
        'The line range is outside the note',
        /past the note's 4 lines/,
      ],
      [{ vault: 'notes', path: 'plan.md', line_start: 3, line_end: 2 }, 'The line range is outside the note', /before/],
      [{ vault: 'notes', path: 'plan.md', line_start: 0 }, 'The tool arguments do not match', /line_start/],
    ];
    for (const [args, message, audited] of refusals) {
      const answer = await read(args);
      assert.equal(answer.error?.code, -32602, JSON.stringify(args));
      assert.ok(answer.error?.message.startsWith(message), answer.error?.message);
      assert.doesNotMatch(
        answer.error?.message ?? '',
        /secret|gone|\.\.|past|before/,
        'the detail stays in the audit line',
      );
      assert.equal(fixture.lastAudit().decision, 'deny');
      assert.match(fixture.lastAudit().reason, audited);
    }
  });

  it('audits why a path was refused, and never echoes it to the client', async (t) => {
    const fixture = await startNotesServer(t);
    const response = await post(
      fixture,
      toolCall('notes.write', { title: 't', body: 'b', path: '../../etc/passwd.md' }),
      mcpHeaders(await fixture.issuer.sign()),
    );
    const text = await response.text();
    assert.doesNotMatch(text, /passwd/);
    assert.match(fixture.lastAudit().reason, /path has a '\.\.' segment/);
  });

  it('answers a wrong Content-Type with 415 and a missing event-stream Accept with 406', async (t) => {
    const fixture = await startNotesServer(t);
    const token = await fixture.issuer.sign();
    const text = await post(fixture, rpc('ping'), mcpHeaders(token, { 'content-type': 'text/plain' }));
    assert.equal(text.status, 415);
    const accept = await post(fixture, rpc('ping'), mcpHeaders(token, { accept: 'application/json' }));
    assert.equal(accept.status, 406);
    assert.match(fixture.lastAudit().reason, /^invalid_request: Accept must list/);
    // Media types, not substrings (RFC 9110 §12.5.1): case and parameters aside, weight 0 excluded, no wildcards.
    const answers: [accept: string, status: number][] = [
      ['application/jsonx, text/event-stream', 406],
      ['application/json;q=0, text/event-stream', 406],
      ['application/json, text/event-stream; q=0.000', 406],
      ['*/*', 406],
      ['application/*, text/event-stream', 406],
      ['text/event-stream-x, application/json', 406],
      ['APPLICATION/JSON, Text/Event-Stream', 200],
      ['text/event-stream;q=0.5, application/json; charset=utf-8;q=0.9', 200],
      ['application/json , text/event-stream ; q=0.001', 200],
    ];
    for (const [value, status] of answers) {
      const answer = await post(fixture, rpc('ping'), mcpHeaders(token, { accept: value }));
      assert.equal(answer.status, status, value);
    }
    const charset = await post(
      fixture,
      rpc('ping'),
      mcpHeaders(token, { 'content-type': 'application/json; charset=utf-8' }),
    );
    assert.equal(charset.status, 200);
  });

  it('refuses a foreign Origin with 403 and accepts its own origin', async (t) => {
    const fixture = await startNotesServer(t);
    const token = await fixture.issuer.sign();
    for (const origin of [
      'http://evil.example',
      'null',
      `http://localhost:${fixture.base.port}`,
      'https://127.0.0.1',
    ]) {
      const response = await post(fixture, rpc('ping'), mcpHeaders(token, { origin }));
      assert.equal(response.status, 403, origin);
      assert.equal(response.headers.get('www-authenticate'), null);
      assert.match(fixture.lastAudit().reason, /^invalid_request: Origin not allowed/);
    }
    const own = await post(fixture, rpc('ping'), mcpHeaders(token, { origin: fixture.base.origin }));
    assert.equal(own.status, 200);
  });

  it('answers GET and DELETE on the endpoint with 405 Allow: POST, audited', async (t) => {
    const fixture = await startNotesServer(t);
    for (const method of ['GET', 'DELETE', 'PUT']) {
      const response = await fetch(fixture.endpoint, { method, headers: mcpHeaders(await fixture.issuer.sign()) });
      assert.equal(response.status, 405);
      assert.equal(response.headers.get('allow'), 'POST');
      assert.equal(
        fixture.lastAudit().reason,
        `invalid_request: Only POST is accepted on the MCP endpoint (method ${method})`,
      );
    }
  });

  it('serves RFC 9728 metadata at the path-specific well-known URL and 404 elsewhere', async (t) => {
    const fixture = await startNotesServer(t);
    const metadata = await fetch(new URL('/.well-known/oauth-protected-resource/mcp', fixture.base));
    assert.equal(metadata.status, 200);
    assert.deepEqual(await metadata.json(), {
      resource: fixture.endpoint,
      authorization_servers: [fixture.issuer.issuer],
      scopes_supported: ['notes:read', 'notes:write'],
      bearer_methods_supported: ['header'],
      resource_name: 'notegate notes server test',
    });
    assert.equal((await fetch(new URL('/.well-known/oauth-protected-resource', fixture.base))).status, 404);
    assert.equal((await fetch(new URL('/mcp/', fixture.base), { method: 'POST' })).status, 404);
    assert.equal(fixture.auditLines.length, 0, 'metadata and 404s are not authorization decisions');
  });

  it('writes exactly one audit line per request on the endpoint', async (t) => {
    const fixture = await startNotesServer(t);
    const token = await fixture.issuer.sign();
    await post(fixture, rpc('ping'), mcpHeaders(token));
    await post(fixture, rpc('ping'), mcpHeaders());
    await post(fixture, '[]', mcpHeaders(token));
    assert.deepEqual(
      fixture.audit().map((entry) => [entry.decision, entry.status]),
      [
        ['allow', 200],
        ['deny', 401],
        ['deny', 400],
      ],
    );
  });
});
