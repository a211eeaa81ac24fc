import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { describe, it } from 'node:test';
import { closeServer, listen } from '../../src/http/listen.js';
import { BodyTooLargeError, readBody } from '../../src/http/read-body.js';
import { sendJson, sendJsonAndClose } from '../../src/http/respond.js';
import { matchRoute } from '../../src/http/routes.js';

describe('matchRoute', () => {
  const handler = () => {};
  const routes = new Map([['/token', { POST: handler }]]);
  it('finds, 404s and 405s with Allow', () => {
    assert.equal(matchRoute(routes, 'POST', '/token?x=1').kind, 'found');
    assert.deepEqual(matchRoute(routes, 'GET', '/nope'), { kind: 'not_found' });
    assert.deepEqual(matchRoute(routes, 'GET', '/token'), { kind: 'method_not_allowed', allow: 'POST' });
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
