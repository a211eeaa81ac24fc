import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { transportFailed } from '../../src/agent/agent-errors.js';
import type { AccessToken } from '../../src/agent/token-request.js';
import { TokenKeeper } from '../../src/proxy/token-keeper.js';
import { ManualClock } from '../support/manual-clock.js';

const MARGIN_MS = 60_000;

/** A keeper whose fetches the test resolves or rejects by hand. */
function harness(lifetimeMs = 300_000) {
  const clock = new ManualClock();
  const fetches: { resolve: (token: AccessToken) => void; reject: (err: unknown) => void }[] = [];
  const failures: unknown[] = [];
  let minted = 0;
  const keeper = new TokenKeeper({
    fetchToken: () => new Promise((resolve, reject) => fetches.push({ resolve, reject })),
    refreshMarginMs: MARGIN_MS,
    clock: clock.now,
    onFailure: (err) => failures.push(err),
  });
  const token = (): AccessToken => {
    minted += 1;
    return {
      accessToken: `token-${minted}`,
      expiresAt: new Date(clock.nowMs + lifetimeMs),
      issuer: 'http://issuer',
      scope: 'notes:read',
      resource: 'http://notes/mcp',
    };
  };
  /** Lets a deferred background refresh start (it waits for the request that asked to go out). */
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  /** Resolves the oldest open fetch with a new token. */
  const answer = async () => {
    const next = fetches.shift();
    assert.ok(next, 'a fetch is open');
    next.resolve(token());
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { clock, keeper, fetches, failures, answer, turn };
}

describe('the proxy token keeper', () => {
  it('fetches on the first request only, and every request waiting meanwhile shares that fetch', async () => {
    const h = harness();
    const first = h.keeper.bearer();
    const second = h.keeper.bearer();
    assert.equal(h.fetches.length, 1);
    await h.answer();
    assert.deepEqual(await Promise.all([first, second]), ['token-1', 'token-1']);
    assert.equal(await h.keeper.bearer(), 'token-1');
    assert.equal(h.fetches.length, 0, 'no fetch while the token is fresh');
  });

  it('mints nothing while idle: no timer, however long the token has been held', async () => {
    const h = harness();
    const first = h.keeper.bearer();
    await h.answer();
    await first;
    h.clock.advanceMs(10 * 60_000);
    assert.equal(h.fetches.length, 0);
  });

  it('once a minute is left, starts one refresh in the background and still answers with the current token', async () => {
    const h = harness();
    const first = h.keeper.bearer();
    await h.answer();
    await first;
    h.clock.advanceMs(240_000 - 1);
    assert.equal(await h.keeper.bearer(), 'token-1');
    assert.equal(h.fetches.length, 0);
    h.clock.advanceMs(1);
    assert.equal(await h.keeper.bearer(), 'token-1', 'the request does not wait');
    assert.equal(h.fetches.length, 0, 'the request goes out before the refresh starts');
    await h.turn();
    assert.equal(await h.keeper.bearer(), 'token-1');
    assert.equal(h.fetches.length, 1, 'one background refresh');
    await h.answer();
    assert.equal(await h.keeper.bearer(), 'token-2');
  });

  it('makes a request wait when the token has less than 5 s left', async () => {
    const h = harness();
    const first = h.keeper.bearer();
    await h.answer();
    await first;
    h.clock.advanceMs(295_000);
    const waiting = h.keeper.bearer();
    assert.equal(h.fetches.length, 1);
    await h.answer();
    assert.equal(await waiting, 'token-2');
  });

  it('refreshes a short-lived token at half its life and sends it until a quarter of it is left', async () => {
    const h = harness(4_000);
    const first = h.keeper.bearer();
    await h.answer();
    await first;
    h.clock.advanceMs(1_999);
    assert.equal(await h.keeper.bearer(), 'token-1');
    assert.equal(h.fetches.length, 0);
    h.clock.advanceMs(1);
    assert.equal(await h.keeper.bearer(), 'token-1');
    await h.turn();
    assert.equal(h.fetches.length, 1, 'background refresh at half its life');
    h.clock.advanceMs(1_000);
    const waiting = h.keeper.bearer();
    await h.answer();
    assert.equal(await waiting, 'token-2');
  });

  it('after a failed background refresh, waits a backoff before the next attempt and reports the failure', async () => {
    const h = harness();
    const first = h.keeper.bearer();
    await h.answer();
    await first;
    h.clock.advanceMs(240_000);
    await h.keeper.bearer();
    await h.turn();
    h.fetches.shift()?.reject(transportFailed('token_request', 'http_503', 'authz is down'));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(h.failures.length, 1);
    assert.equal(await h.keeper.bearer(), 'token-1', 'the current token is still good');
    assert.equal(h.fetches.length, 0, 'no new attempt right away');
    h.clock.advanceMs(1_000);
    await h.keeper.bearer();
    await h.turn();
    assert.equal(h.fetches.length, 1, 'a new attempt after the backoff');
  });

  it('hands a failed fetch to the waiting requests, and the next request tries again', async () => {
    const h = harness();
    const waiting = h.keeper.bearer();
    h.fetches.shift()?.reject(transportFailed('svid', 'workload_api_unavailable', 'no socket'));
    await assert.rejects(waiting, /workload_api_unavailable/);
    const again = h.keeper.bearer();
    assert.equal(h.fetches.length, 1);
    await h.answer();
    assert.equal(await again, 'token-1');
  });

  it('drops a token the server refused, but not a newer one', async () => {
    const h = harness();
    const first = h.keeper.bearer();
    await h.answer();
    await first;
    h.keeper.reject('token-1');
    const retry = h.keeper.bearer();
    assert.equal(h.fetches.length, 1);
    await h.answer();
    assert.equal(await retry, 'token-2');
    h.keeper.reject('token-1');
    assert.equal(await h.keeper.bearer(), 'token-2', 'a late 401 for the old token changes nothing');
    assert.equal(h.fetches.length, 0);
  });
});
