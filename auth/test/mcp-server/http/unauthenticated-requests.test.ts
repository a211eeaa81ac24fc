import assert from 'node:assert/strict';
import { once } from 'node:events';
import { request } from 'node:http';
import { connect } from 'node:net';
import { describe, it } from 'node:test';
import { BODY_LIMIT_BYTES } from '../../../src/mcp-server/request/header-screening.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../../src/mcp-server/request/json-depth.js';
import { TEST_SUBJECT } from '../../support/access-token-issuer.js';
import {
  challengeParams,
  mcpHeaders,
  modernHeaders,
  modernToolCall,
  type NotesServerFixture,
  startNotesServer,
  toolCall,
} from '../../support/notes-server-fixture.js';
import { notesIn } from '../../support/test-engine.js';

/** A raw HTTP exchange: the request head and the first part of a body the client never finishes. */
async function unfinishedPost(fixture: NotesServerFixture, headers: Record<string, string>, bodyStart: string) {
  const socket = connect(Number(fixture.base.port), fixture.base.hostname);
  socket.on('error', () => undefined);
  let received = '';
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString('utf8');
  });
  const closed = once(socket, 'close');
  await once(socket, 'connect');
  const head = Object.entries({ ...headers, host: fixture.base.host, 'content-length': String(BODY_LIMIT_BYTES) })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.write(`POST /mcp HTTP/1.1\r\n${head}\r\n${bodyStart}`);
  // The client still owes most of its 1 MiB; only an answer from the headers alone can arrive.
  await closed;
  const [status = '', ...rest] = received.split('\r\n');
  const blank = rest.indexOf('');
  const responseHeaders = Object.fromEntries(
    rest
      .slice(0, blank)
      .map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 2)]),
  );
  return { status, headers: responseHeaders, body: JSON.parse(rest.slice(blank + 1).join('\r\n')) as unknown };
}

/** POSTs a whole body with http.request (no fetch: its errors on a closed upload are noisy), resolving with the status. */
function postWhole(fixture: NotesServerFixture, headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(fixture.endpoint, { method: 'POST', headers });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
    req.end(body);
  });
}

const NESTED = '['.repeat(64 * 1024);

describe('an unauthenticated request costs no body read', () => {
  it('answers a token-less POST with 401 and its challenge while the client is still sending the body', async (t) => {
    const fixture = await startNotesServer(t);
    const reply = await unfinishedPost(fixture, mcpHeaders(), NESTED);
    assert.equal(reply.status, 'HTTP/1.1 401 Unauthorized');
    assert.equal(reply.headers.connection, 'close');
    assert.ok(challengeParams(reply.headers['www-authenticate'] ?? null).resource_metadata);
    assert.deepEqual(reply.body, { error_description: 'Authentication required' });
    assert.equal(fixture.lastAudit().decision, 'deny');
    assert.match(fixture.lastAudit().reason, /^http_401: Authentication required/);
  });

  it('answers an invalid token the same way: 401 invalid_token before the body', async (t) => {
    const fixture = await startNotesServer(t);
    const expired = await fixture.issuer.sign({ claims: { exp: fixture.clock.nowS } });
    const reply = await unfinishedPost(fixture, mcpHeaders(expired), NESTED);
    assert.equal(reply.status, 'HTTP/1.1 401 Unauthorized');
    assert.equal(challengeParams(reply.headers['www-authenticate'] ?? null).error, 'invalid_token');
    assert.match(fixture.lastAudit().reason, /has expired/);
    assert.equal(fixture.lastAudit().spiffe_id, TEST_SUBJECT);
  });

  it('audits the method and tool the 2026-07-28 headers name when it refuses without the body', async (t) => {
    const fixture = await startNotesServer(t);
    const reply = await unfinishedPost(fixture, modernHeaders(undefined, 'tools/call', 'notes.write'), NESTED);
    assert.equal(challengeParams(reply.headers['www-authenticate'] ?? null).scope, 'notes:read notes:write');
    assert.equal(fixture.lastAudit().tool, 'notes.write');
    assert.equal(fixture.lastAudit().method, 'tools/call');

    const long = 'n'.repeat(5_000);
    await unfinishedPost(fixture, modernHeaders(undefined, 'tools/call', long), NESTED);
    assert.equal(fixture.lastAudit().tool, `${'n'.repeat(128)}…`);
  });

  it('decides the scope on the body once authenticated: headers naming a granted tool do not lend their scope', async (t) => {
    const fixture = await startNotesServer(t);
    const reader = await fixture.issuer.sign({ claims: { scope: 'notes:read' } });
    const response = await fetch(fixture.endpoint, {
      method: 'POST',
      headers: modernHeaders(reader, 'tools/call', 'notes.search'),
      body: modernToolCall('notes.write', { title: 't', body: 'b' }, 4),
    });
    assert.equal(response.status, 403);
    assert.equal(challengeParams(response.headers.get('www-authenticate')).scope, 'notes:write');
    assert.equal(fixture.lastAudit().tool, 'notes.write');
    assert.deepEqual(notesIn(fixture.notesDir), [], 'nothing written');
  });

  it('keeps serving an authenticated client while 8 clients without a token send 1 MiB nested bodies', async (t) => {
    const fixture = await startNotesServer(t);
    const token = await fixture.issuer.sign();
    const nested = '['.repeat(BODY_LIMIT_BYTES);
    let attacking = true;
    const attackers = Array.from({ length: 8 }, async () => {
      const statuses = new Set<number>();
      while (attacking) statuses.add(await postWhole(fixture, mcpHeaders(), nested));
      return statuses;
    });
    const served: number[] = [];
    for (let i = 0; i < 5; i++) {
      served.push(await postWhole(fixture, mcpHeaders(token), toolCall('notes.search', { query: 'keys' })));
    }
    attacking = false;
    const attackerStatuses = new Set((await Promise.all(attackers)).flatMap((statuses) => [...statuses]));
    assert.deepEqual(served, [200, 200, 200, 200, 200]);
    // 0: the server answered and closed before the upload was done, and the client saw the reset first.
    for (const status of attackerStatuses) assert.ok(status === 401 || status === 0, `attacker got ${status}`);
    assert.ok(attackerStatuses.has(401));
  });
});

describe('JSON nesting depth', () => {
  it(`refuses an authenticated body nested more than ${MAX_JSON_DEPTH} levels with 400, before parsing it`, async (t) => {
    const fixture = await startNotesServer(t);
    const token = await fixture.issuer.sign();
    const deep = (levels: number) =>
      toolCall('notes.search', { query: 'x', limit: JSON.parse(`${'['.repeat(levels)}${']'.repeat(levels)}`) });
    // The body's own object, params and arguments take three levels.
    const refused = await fetch(fixture.endpoint, {
      method: 'POST',
      headers: mcpHeaders(token),
      body: deep(MAX_JSON_DEPTH - 2),
    });
    assert.equal(refused.status, 400);
    assert.deepEqual(await refused.json(), {
      error: 'invalid_request',
      error_description: 'The request body nests JSON more than 64 levels deep',
    });
    assert.match(fixture.lastAudit().reason, /nesting past level 64/);
    const accepted = await fetch(fixture.endpoint, {
      method: 'POST',
      headers: mcpHeaders(token),
      body: deep(MAX_JSON_DEPTH - 3),
    });
    assert.equal(accepted.status, 200, 'parsed, then refused in-band by the tool schema');
    const brackets = await fetch(fixture.endpoint, {
      method: 'POST',
      headers: mcpHeaders(token),
      body: toolCall('notes.search', { query: '[{'.repeat(400) }),
    });
    assert.equal(brackets.status, 200, 'brackets inside strings do not count');
  });

  const cases: [string, string, boolean][] = [
    ['flat object', '{"a":1,"b":[1,2]}', false],
    ['exactly at the limit', `${'['.repeat(4)}${']'.repeat(4)}`, false],
    ['one past the limit', `${'['.repeat(5)}${']'.repeat(5)}`, true],
    ['objects count like arrays', '{"a":{"b":{"c":{"d":{"e":1}}}}}', true],
    ['brackets in a string', `["${'['.repeat(10)}"]`, false],
    ['an escaped quote keeps the string open', `["\\"${'['.repeat(10)}"]`, false],
    ['an escaped backslash closes it', `["\\\\",${'['.repeat(5)}`, true],
    ['siblings do not add up', '[[[[]]],[[[]]],[[[]]]]', false],
    ['unclosed brackets count as they open', '[[[[[', true],
    ['multi-byte text around brackets', '["é[[[[[[", ["日本"]]', false],
  ];
  for (const [name, json, deeper] of cases) {
    it(`scans ${name}`, () => {
      assert.equal(nestsDeeperThan(Buffer.from(json, 'utf8'), 4), deeper);
    });
  }
});
