import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { reservePort } from '@notegate/kit/http';
import { fetchAccessToken } from '../../src/agent/fetch-access-token.js';
import { MAX_RESPONSE_BYTES } from '../../src/agent/http-exchange.js';
import { rejectsAt } from '../support/agent-assertions.js';
import { AS_METADATA_PATH, fakeOAuthWorld, PRM_PATH } from '../support/fake-oauth-world.js';
import { ScriptedServer } from '../support/scripted-server.js';

describe('every agent request is bounded', () => {
  it('refuses to follow a redirect of the resource metadata, and never asks the redirect target', async (t) => {
    const w = await fakeOAuthWorld(t);
    const elsewhere = await ScriptedServer.start(t);
    elsewhere.json(PRM_PATH, w.prm());
    w.resourceServer.on(PRM_PATH, (_req, res) => res.writeHead(302, { location: elsewhere.at(PRM_PATH) }).end());
    const err = await rejectsAt(
      fetchAccessToken(w.options),
      'protected_resource_metadata',
      'redirect_refused',
      'transport',
    );
    assert.match(err.message, /answered 302 to/);
    assert.equal(elsewhere.requests.length, 0);
  });

  it('refuses to follow a redirect of the authorization server metadata or of the token request', async (t) => {
    const w = await fakeOAuthWorld(t);
    w.authServer.on(AS_METADATA_PATH, (_req, res) => res.writeHead(301, { location: '/moved' }).end());
    await rejectsAt(fetchAccessToken(w.options), 'authorization_server_metadata', 'redirect_refused', 'transport');
    w.authServer.json(AS_METADATA_PATH, w.asMetadata());
    w.authServer.on('/token', (_req, res) => res.writeHead(307, { location: '/token2' }).end());
    await rejectsAt(fetchAccessToken(w.options), 'token_request', 'redirect_refused', 'transport');
    assert.ok(!w.authServer.requests.some((r) => r.path === '/token2'));
  });

  it('gives up on a server that does not answer within the timeout, and closes the connection', async (t) => {
    const w = await fakeOAuthWorld(t);
    let abandoned: Promise<void> | undefined;
    w.resourceServer.on(PRM_PATH, (_req, res) => {
      abandoned = new Promise((resolve) => res.once('close', resolve));
    });
    const err = await rejectsAt(
      fetchAccessToken({ ...w.options, timeoutMs: 200 }),
      'protected_resource_metadata',
      'timeout',
      'transport',
    );
    assert.match(err.message, /within 200 ms/);
    assert.ok(abandoned, 'the request reached the server');
    // The server never answers: only the agent giving up ends the exchange.
    await abandoned;
  });

  it('gives up on a token endpoint that stops sending its body midway', async (t) => {
    const w = await fakeOAuthWorld(t);
    w.authServer.on('/token', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"access_token":');
    });
    await rejectsAt(fetchAccessToken({ ...w.options, timeoutMs: 200 }), 'token_request', 'timeout', 'transport');
  });

  it('reports a refused connection', async (t) => {
    const w = await fakeOAuthWorld(t);
    const port = await reservePort();
    await rejectsAt(
      fetchAccessToken({ ...w.options, resource: `http://127.0.0.1:${port}/mcp` }),
      'protected_resource_metadata',
      'connection_failed',
      'transport',
    );
  });

  it('stops reading an answer larger than the limit', async (t) => {
    const w = await fakeOAuthWorld(t);
    w.resourceServer.json(PRM_PATH, w.prm({ padding: 'x'.repeat(MAX_RESPONSE_BYTES) }));
    await rejectsAt(fetchAccessToken(w.options), 'protected_resource_metadata', 'response_too_large', 'transport');
  });
});
