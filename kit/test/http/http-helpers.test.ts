import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { describe, it } from 'node:test';
import { acceptListsMediaType } from '../../src/http/accept.js';
import { closeServer, listen } from '../../src/http/listen.js';
import { BodyTooLargeError, readBody } from '../../src/http/read-body.js';
import { sendJson, sendJsonAndClose } from '../../src/http/respond.js';
import { type Handler, matchRoute, routeRequests } from '../../src/http/routes.js';

describe('matchRoute', () => {
  const handler = () => {};
  const routes = new Map([['/token', { POST: handler }]]);
  it('finds, 404s and 405s with Allow', () => {
    assert.equal(matchRoute(routes, 'POST', '/token?x=1').kind, 'found');
    assert.deepEqual(matchRoute(routes, 'GET', '/nope'), { kind: 'not_found' });
    assert.deepEqual(matchRoute(routes, 'GET', '/token'), { kind: 'method_not_allowed', allow: 'POST' });
  });
});

describe('routeRequests', () => {
  it("serves the route, else 404, else 405 with Allow, else the server's 500 or a closed connection", async (t) => {
    const failures: unknown[] = [];
    const routes = new Map<string, Record<string, Handler>>([
      ['/ok', { GET: (_req, res) => sendJson(res, 200, { ok: true }), PUT: () => undefined }],
      ['/throws', { GET: () => Promise.reject(new Error('boom')) }],
      [
        '/late',
        {
          GET: (_req, res) => {
            res.writeHead(200, { 'Content-Type': 'text/plain' });
            res.write('partial');
            throw new Error('after the head');
          },
        },
      ],
    ]);
    const server = createServer(
      routeRequests(routes, {
        notFound: (_req, res) => sendJson(res, 404, { error: 'nowhere' }),
        methodNotAllowed: (_req, res, allow) => sendJson(res, 405, { allowed: allow }),
        failed: (_req, res, err) => {
          failures.push(err);
          sendJson(res, 500, { error: 'ours' });
        },
      }),
    );
    const base = await listen(server, '127.0.0.1', 0);
    t.after(() => closeServer(server));

    assert.deepEqual(await (await fetch(new URL('/ok?x=1', base))).json(), { ok: true });
    const missing = await fetch(new URL('/nope', base));
    assert.deepEqual([missing.status, await missing.json()], [404, { error: 'nowhere' }]);
    const wrong = await fetch(new URL('/ok', base), { method: 'DELETE' });
    assert.deepEqual(
      [wrong.status, wrong.headers.get('allow'), await wrong.json()],
      [405, 'GET, PUT', { allowed: 'GET, PUT' }],
    );
    const thrown = await fetch(new URL('/throws', base));
    assert.deepEqual([thrown.status, await thrown.json()], [500, { error: 'ours' }]);
    assert.equal(failures.length, 1);
    await assert.rejects(async () => (await fetch(new URL('/late', base))).text(), 'a begun answer is cut off');
    assert.equal(failures.length, 1, 'failed is not asked to answer once the head is sent');
  });
});

describe('readBody', () => {
  it('reads bodies up to the limit and refuses larger ones with 413', async (t) => {
    const server = createServer(async (req, res) => {
      try {
        const body = await readBody(req, 16);
        sendJson(res, 200, { bytes: body.length });
      } catch (err) {
        assert.ok(err instanceof BodyTooLargeError);
        sendJsonAndClose(res, 413, { error: 'invalid_request' });
      }
    });
    const base = await listen(server, '127.0.0.1', 0);
    t.after(() => closeServer(server));

    const ok = await fetch(base, { method: 'POST', body: 'x'.repeat(16) });
    assert.deepEqual(await ok.json(), { bytes: 16 });

    const declared = await fetch(base, { method: 'POST', body: 'x'.repeat(17) });
    assert.equal(declared.status, 413);

    const streamed = await fetch(base, {
      method: 'POST',
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('y'.repeat(40)));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    assert.equal(streamed.status, 413);
  });
});

describe('acceptListsMediaType (RFC 9110 §12.5.1)', () => {
  const cases: [accept: string | undefined, type: string, listed: boolean][] = [
    ['application/json, text/event-stream', 'application/json', true],
    ['application/json, text/event-stream', 'text/event-stream', true],
    ['TEXT/Event-Stream', 'text/event-stream', true],
    ['application/json;charset=utf-8', 'application/json', true],
    ['application/json ; q=0.5', 'application/json', true],
    ['application/json;q=0', 'application/json', false],
    ['application/json; Q=0.00', 'application/json', false],
    ['application/json;q=0.001', 'application/json', true],
    ['application/jsonx', 'application/json', false],
    ['xapplication/json', 'application/json', false],
    ['text/event-stream-x', 'text/event-stream', false],
    ['*/*', 'application/json', false],
    ['application/*', 'application/json', false],
    ['text/html;level="a,application/json", text/plain', 'application/json', false],
    ['text/html;x="a\\",b", application/json', 'application/json', true],
    ['', 'application/json', false],
    [undefined, 'application/json', false],
  ];
  for (const [accept, type, listed] of cases) {
    it(`${JSON.stringify(accept)} ${listed ? 'lists' : 'does not list'} ${type}`, () => {
      assert.equal(acceptListsMediaType(accept, type), listed);
    });
  }
});
