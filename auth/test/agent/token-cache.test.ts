import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fetchAccessToken } from '../../src/agent/fetch-access-token.js';
import { AccessTokenCache, DEFAULT_REUSE_MARGIN_MS } from '../../src/agent/token-cache.js';
import type { AccessToken } from '../../src/agent/token-request.js';
import { fakeOAuthWorld } from '../support/fake-oauth-world.js';
import { ManualClock } from '../support/manual-clock.js';

function tokenExpiringAt(expiresAtMs: number, accessToken = 't1'): AccessToken {
  return {
    accessToken,
    expiresAt: new Date(expiresAtMs),
    issuer: 'http://127.0.0.1:8080',
    scope: 'notes:read',
    resource: 'http://127.0.0.1:8081/mcp',
  };
}

const KEY = { resource: 'http://127.0.0.1:8081/mcp', issuer: 'http://127.0.0.1:8080', scope: 'notes:read' };

describe('the access token cache', () => {
  it('hands a token out again until the reuse margin before it expires, then forgets it', () => {
    const clock = new ManualClock();
    const cache = new AccessTokenCache({ clock: clock.now });
    const token = tokenExpiringAt(clock.nowMs + 300_000);
    cache.set(KEY, token);
    assert.equal(cache.get(KEY), token);
    clock.advanceMs(300_000 - DEFAULT_REUSE_MARGIN_MS - 1);
    assert.equal(cache.get(KEY), token, '1 ms more than the margin left');
    clock.advanceMs(1);
    assert.equal(cache.get(KEY), undefined, 'exactly the margin left');
    clock.advanceMs(-1);
    assert.equal(cache.get(KEY), undefined, 'a stale entry is dropped, not kept for later');
  });

  it('keys tokens by resource, issuer and scope; scopes as sets, resources in the resource form', () => {
    const clock = new ManualClock();
    const cache = new AccessTokenCache({ clock: clock.now, reuseMarginMs: 0 });
    const token = tokenExpiringAt(clock.nowMs + 300_000);
    cache.set({ ...KEY, scope: 'notes:read notes:write' }, token);
    assert.equal(cache.get({ ...KEY, scope: 'notes:write notes:read' }), token);
    assert.equal(cache.get({ ...KEY, scope: 'notes:read notes:write', resource: 'HTTP://127.0.0.1:8081/mcp' }), token);
    assert.equal(cache.get({ ...KEY, scope: 'notes:read' }), undefined);
    assert.equal(cache.get({ ...KEY, scope: 'notes:read notes:write', issuer: 'http://127.0.0.1:9090' }), undefined);
    assert.equal(cache.get({ ...KEY, scope: 'notes:read notes:write', resource: 'http://127.0.0.1:8081/mcp/' }), token);
    for (const resource of ['http://127.0.0.1:8081/MCP', 'http://localhost:8081/mcp', 'http://127.0.0.1:8081/mcp/x']) {
      assert.equal(cache.get({ ...KEY, scope: 'notes:read notes:write', resource }), undefined, resource);
    }
  });

  it('lets fetchAccessToken reuse a token (no SVID, no token request) until shortly before it expires', async (t) => {
    const w = await fakeOAuthWorld(t);
    const clock = new ManualClock();
    const cache = new AccessTokenCache({ clock: clock.now });
    const options = { ...w.options, clock: clock.now, cache };
    const first = await fetchAccessToken(options);
    clock.advanceMs(200_000);
    assert.equal(await fetchAccessToken(options), first);
    assert.equal(w.svids.audiences.length, 1);
    assert.equal(w.tokenForms().length, 1);
    await fetchAccessToken({ ...options, scope: 'notes:read notes:write' });
    assert.equal(w.tokenForms().length, 2, 'another scope is another token');
    clock.advanceMs(300_000 - 200_000 - DEFAULT_REUSE_MARGIN_MS);
    const renewed = await fetchAccessToken(options);
    assert.notEqual(renewed, first);
    assert.equal(renewed.expiresAt.getTime(), clock.nowMs + 300_000);
    assert.equal(w.svids.audiences.length, 3);
  });

  it('still reads the resource metadata on a cache hit, so a withdrawn issuer is not used again', async (t) => {
    const w = await fakeOAuthWorld(t);
    const cache = new AccessTokenCache();
    await fetchAccessToken({ ...w.options, cache });
    w.resourceServer.json(
      '/.well-known/oauth-protected-resource/mcp',
      w.prm({ authorization_servers: ['https://other.example'] }),
    );
    await assert.rejects(fetchAccessToken({ ...w.options, cache }), /issuer_refused/);
  });
});
