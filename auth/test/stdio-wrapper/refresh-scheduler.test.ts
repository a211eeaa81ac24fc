import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { transportFailed } from '../../src/agent/agent-errors.js';
import { refreshDelayMs } from '../../src/agent/token-refresh.js';
import type { AccessToken } from '../../src/agent/token-request.js';
import { RefreshScheduler } from '../../src/stdio-wrapper/refresh-scheduler.js';
import { FakeTimers } from '../support/fake-timers.js';
import { ManualClock } from '../support/manual-clock.js';

const MARGIN_MS = 120_000;
const LIFETIME_MS = 300_000;

/** A scheduler on a manual clock whose token source the test scripts. */
function harness(options: { installFails?: () => boolean } = {}) {
  const clock = new ManualClock();
  const timers = new FakeTimers(clock);
  let issued = 0;
  const newToken = (): AccessToken => ({
    accessToken: `token-${++issued}`,
    expiresAt: new Date(clock.nowMs + LIFETIME_MS),
    issuer: 'http://127.0.0.1:8080',
    scope: 'notes:read',
    resource: 'http://127.0.0.1:8081/mcp',
  });
  const state = {
    fetches: [] as number[],
    installed: [] as string[],
    retries: [] as number[],
    expired: [] as unknown[],
    failing: false,
  };
  const scheduler = new RefreshScheduler(
    {
      fetchToken: async () => {
        state.fetches.push(clock.nowMs);
        if (state.failing) throw transportFailed('token_request', 'temporarily_unavailable', 'HTTP 503');
        return newToken();
      },
      install: async (token) => {
        if (options.installFails?.()) throw new Error('ENOSPC: no space left on device');
        state.installed.push(token.accessToken);
      },
      onRetry: (_err, delayMs) => state.retries.push(delayMs),
      onExpired: (lastError) => state.expired.push(lastError),
      refreshMarginMs: MARGIN_MS,
      backoff: { initialMs: 1_000, maxMs: 30_000, random: () => 0.999 },
      clock: clock.now,
      timers,
    },
    newToken(),
  );
  return { clock, timers, scheduler, state, start: clock.nowMs };
}

describe('refresh schedule', () => {
  const delays: [string, number, number][] = [
    ['a fresh 300 s token: when 120 s are left', 300_000, 180_000],
    ['a token with 121 s left', 121_000, 1_000],
    ['a token with exactly the margin left: at half its remaining life', 120_000, 60_000],
    ['a 60 s token: at half its life', 60_000, 30_000],
    ['a token about to expire: never sooner than 1 s', 500, 1_000],
    ['an expired token: never sooner than 1 s', -5_000, 1_000],
  ];
  for (const [what, remainingMs, expected] of delays) {
    it(`refreshes ${what}`, () => {
      assert.equal(refreshDelayMs(1_000_000 + remainingMs, 1_000_000, MARGIN_MS), expected);
    });
  }

  it('replaces the token when 120 s of it are left, and keeps doing so', async () => {
    const h = harness();
    h.scheduler.start();
    await h.timers.advanceMs(180_000 - 1);
    assert.deepEqual(h.state.fetches, []);
    await h.timers.advanceMs(1);
    assert.deepEqual(h.state.fetches, [h.start + 180_000]);
    assert.deepEqual(h.state.installed, ['token-2']);
    await h.timers.advanceMs(180_000);
    assert.deepEqual(h.state.installed, ['token-2', 'token-3']);
    assert.equal(h.scheduler.current.accessToken, 'token-3');
    assert.deepEqual(h.state.expired, []);
    h.scheduler.stop();
  });

  it('retries a failed refresh with capped backoff until one succeeds, then returns to the normal schedule', async () => {
    const h = harness();
    h.state.failing = true;
    h.scheduler.start();
    await h.timers.advanceMs(180_000 + 31_000);
    // Doubling from 1 s, capped at 30 s (jitter pinned near the top of each range).
    assert.deepEqual(h.state.retries, [999, 1_999, 3_998, 7_996, 15_992, 29_985]);
    h.state.failing = false;
    await h.timers.advanceMs(30_000);
    assert.deepEqual(h.state.installed, ['token-2']);
    const fetchesAfterSuccess = h.state.fetches.length;
    const succeededAt = h.state.fetches.at(-1) ?? 0;
    await h.timers.advanceMs(succeededAt + 180_000 - 1 - h.clock.nowMs);
    assert.equal(h.state.fetches.length, fetchesAfterSuccess, 'back to refreshing 120 s before expiry');
    await h.timers.advanceMs(1);
    assert.equal(h.state.fetches.length, fetchesAfterSuccess + 1);
    assert.deepEqual(h.state.expired, []);
    h.scheduler.stop();
  });

  it('reports expiry once, with the last error, when no refresh succeeds in time, and then stops', async () => {
    const h = harness();
    h.state.failing = true;
    h.scheduler.start();
    await h.timers.advanceMs(LIFETIME_MS - 1);
    assert.deepEqual(h.state.expired, []);
    await h.timers.advanceMs(1);
    assert.equal(h.state.expired.length, 1);
    assert.match(String(h.state.expired[0]), /temporarily_unavailable/);
    const fetches = h.state.fetches.length;
    assert.ok(fetches >= 6, `${fetches} attempts in 120 s`);
    h.state.failing = false;
    await h.timers.advanceMs(600_000);
    assert.equal(h.state.fetches.length, fetches, 'nothing after expiry');
    assert.deepEqual(h.timers.pendingDelays(), []);
  });

  it('counts a token file that cannot be written as a failed refresh', async () => {
    let failWrites = true;
    const h = harness({ installFails: () => failWrites });
    h.scheduler.start();
    await h.timers.advanceMs(180_000);
    assert.equal(h.state.retries.length, 1);
    assert.equal(h.scheduler.current.accessToken, 'token-1', 'the old token stays current');
    failWrites = false;
    await h.timers.advanceMs(1_000);
    assert.equal(h.scheduler.current.accessToken, 'token-3');
    h.scheduler.stop();
  });

  it('does nothing once stopped, even when an attempt in flight completes', async () => {
    const h = harness();
    h.scheduler.start();
    h.scheduler.stop();
    await h.timers.advanceMs(LIFETIME_MS * 2);
    assert.deepEqual(h.state.fetches, []);
    assert.deepEqual(h.state.expired, []);
  });
});
