import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { describe, it, type TestContext } from 'node:test';
import {
  BUSY_HEADROOM_CONNECTIONS,
  createBoundedServer,
  DEFAULT_MAX_CONNECTIONS,
  httpTimeouts,
  REQUEST_TIMEOUT_MS,
} from '../../src/http/bounded-server.js';
import { closeServer, listen } from '../../src/http/listen.js';
import { sendJson } from '../../src/http/respond.js';
import { dripBody, dripHeaders, type RawReply, sendNothing } from '../../src/testing/bounded-clients.js';
import { waitFor } from '../../src/testing/wait-for.js';

describe('httpTimeouts', () => {
  it('cuts a client of the default 30 s bound within 31 s: every timeout 30 s, checked every second', () => {
    assert.equal(REQUEST_TIMEOUT_MS, 30_000);
    assert.deepEqual(httpTimeouts(REQUEST_TIMEOUT_MS), {
      headersTimeout: 30_000,
      requestTimeout: 30_000,
      keepAliveTimeout: 5_000,
      connectionsCheckingInterval: 1_000,
    });
  });

  for (const boundMs of [50, 300, 2_000, 30_000, 120_000]) {
    it(`keeps the cut of a ${boundMs} ms bound within a tenth of it`, () => {
      const t = httpTimeouts(boundMs);
      assert.ok(t.headersTimeout <= t.requestTimeout, 'Node refuses a headers timeout above the request timeout');
      assert.ok(t.requestTimeout + t.connectionsCheckingInterval <= boundMs * 1.1);
      assert.ok(t.connectionsCheckingInterval >= 1);
      assert.ok(t.keepAliveTimeout <= t.requestTimeout);
    });
  }
});

/** A raw client: what it received, and whether the server closed the connection. */
function rawClient(t: TestContext, base: URL): { socket: Socket; received: () => string; closed: Promise<void> } {
  const socket = connect(Number(base.port), base.hostname);
  t.after(() => socket.destroy());
  let text = '';
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('latin1');
  });
  socket.on('error', () => undefined);
  const closed = once(socket, 'close').then(() => undefined);
  return { socket, received: () => text, closed };
}

async function boundedServer(t: TestContext, limits: { maxConnections?: number; requestTimeoutMs?: number }) {
  const server: Server = createBoundedServer(
    (req, res) => {
      req.resume();
      req.on('end', () => sendJson(res, 200, { ok: true }));
    },
    { limits, busyBody: { error: 'busy' } },
  );
  const base = await listen(server, '127.0.0.1', 0);
  t.after(() => closeServer(server));
  return { server, base };
}

describe('createBoundedServer', () => {
  const slowClients: [string, (base: URL) => Promise<RawReply>][] = [
    ['sends nothing', sendNothing],
    ['drips its headers', (base) => dripHeaders(base, '/')],
    ['drips its body', (base) => dripBody(base, '/')],
  ];
  for (const [what, client] of slowClients) {
    it(`cuts a client that ${what} once the request bound passes (408)`, async (t) => {
      const { base } = await boundedServer(t, { requestTimeoutMs: 300 });
      assert.equal((await client(base)).statusLine, 'HTTP/1.1 408 Request Timeout');
    });
  }

  it('serves a client that sends its request in time on the same server', async (t) => {
    const { base } = await boundedServer(t, { requestTimeoutMs: 300 });
    const response = await fetch(base, { method: 'POST', body: 'x' });
    assert.equal(response.status, 200);
  });

  it('answers a request on a connection beyond the cap with 503 and the busy body, then closes it', async (t) => {
    const { base } = await boundedServer(t, { maxConnections: 2 });
    const first = rawClient(t, base);
    const second = rawClient(t, base);
    for (const client of [first, second]) {
      client.socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
      await waitFor('the answer', () => client.received().includes('{"ok":true}'));
    }
    const third = rawClient(t, base);
    third.socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await third.closed;
    assert.match(third.received(), /^HTTP\/1\.1 503 /);
    assert.match(third.received(), /\r\nconnection: close\r\n/i);
    assert.match(third.received(), /\r\nretry-after: 1\r\n/i);
    assert.ok(third.received().endsWith('{"error":"busy"}'));

    first.socket.destroy();
    await first.closed;
    // Room again once the server has seen the close.
    await waitFor('a free slot', async () => (await fetch(base, { headers: { connection: 'close' } })).status === 200);
  });

  it('closes connections beyond the cap and its headroom without answering them', async (t) => {
    const { base } = await boundedServer(t, { maxConnections: 1 });
    const held: ReturnType<typeof rawClient>[] = [];
    for (let i = 0; i < 1 + BUSY_HEADROOM_CONNECTIONS; i++) {
      const client = rawClient(t, base);
      await once(client.socket, 'connect');
      held.push(client);
    }
    // Accepted in the order they connected: this one comes after the cap and all of its headroom.
    const beyond = rawClient(t, base);
    beyond.socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await beyond.closed;
    assert.equal(beyond.received(), '');
    const inHeadroom = held[held.length - 1];
    inHeadroom?.socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await inHeadroom?.closed;
    assert.match(inHeadroom?.received() ?? '', /^HTTP\/1\.1 503 /);
  });

  it('serves 512 connections at once unless told otherwise', () => {
    assert.equal(DEFAULT_MAX_CONNECTIONS, 512);
  });
});
