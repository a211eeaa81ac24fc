import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NEEDS_REDIS_SERVER } from '../support/redis-server.js';
import type { Replica } from '../support/replica-stack.js';
import { sampleValue, scrape, startReplicaStack } from '../support/replica-stack.js';

describe('GET /metrics of authz and the notes server', NEEDS_REDIS_SERVER, () => {
  it('serves the Prometheus text format on a loopback listener of its own, which a parser reads', async (t) => {
    const { replicas, notes, svid, callNotes } = await startReplicaStack(t, { count: 1 });
    const [authz] = replicas as [Replica];
    for (const url of [authz.metricsUrl, notes.metricsUrl]) {
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      const response = await fetch(url);
      assert.equal(response.status, 200);
      assert.match(String(response.headers.get('content-type')), /^text\/plain; version=0\.0\.4/);
      assert.equal((await fetch(new URL('/other', url))).status, 404);
      assert.equal((await fetch(url, { method: 'POST' })).status, 405);
    }
    // Never on the public listeners.
    assert.equal((await fetch(new URL('/metrics', authz.url))).status, 404);
    assert.equal((await fetch(new URL('/metrics', notes.url))).status, 404);

    const assertion = await svid();
    const token = ((await (await authz.token(assertion)).json()) as { access_token: string }).access_token;
    assert.equal((await authz.token(assertion)).status, 401);
    assert.equal((await callNotes(token)).status, 200);
    assert.equal((await callNotes('not-a-token')).status, 401);

    const authzMetrics = await scrape(authz.metricsUrl);
    const decisions = (decision: string, reason: string) =>
      sampleValue(authzMetrics, 'notegate_decisions_total', { component: 'authz', decision, reason });
    assert.equal(decisions('allow', 'issued'), 1);
    assert.equal(decisions('deny', 'svid_replayed'), 1);
    const tokenRequests = authzMetrics.get('notegate_request_duration_seconds');
    assert.equal(tokenRequests?.type, 'HISTOGRAM');
    assert.equal(tokenRequests?.metrics[0]?.count, '2');
    assert.equal(tokenRequests?.metrics[0]?.buckets?.['+Inf'], '2');
    const store = authzMetrics.get('notegate_replay_store_duration_seconds');
    assert.equal(store?.metrics[0]?.count, '2', 'both requests reached the store');
    // On Redis the gauge counts keys, as the capacity does: the entry and its SPIFFE ID's share set.
    assert.equal(sampleValue(authzMetrics, 'notegate_replay_store_live_entries', { store: 'redis' }), 2);
    assert.equal(sampleValue(authzMetrics, 'notegate_replay_store_capacity', { store: 'redis' }), 1_000_000);
    assert.equal(sampleValue(authzMetrics, 'notegate_replay_store_errors_total', { store: 'redis' }), 0);

    const notesMetrics = await scrape(notes.metricsUrl);
    const notesDecisions = (decision: string, reason: string) =>
      sampleValue(notesMetrics, 'notegate_decisions_total', { component: 'mcp_server:notes-a', decision, reason });
    assert.equal(notesDecisions('allow', 'allowed'), 1);
    assert.equal(notesDecisions('deny', 'token_malformed'), 1);
    assert.equal(sampleValue(notesMetrics, 'notegate_jwks_fetches_total', { result: 'ok' }), 1);
    assert.equal(notesMetrics.get('notegate_request_duration_seconds')?.metrics[0]?.count, '2');
  });

  it('counts replay store failures by kind while the store is down', async (t) => {
    const { replicas, svid, redis } = await startReplicaStack(t, { count: 1 });
    const [authz] = replicas as [Replica];
    await redis.stop();
    const response = await authz.token(await svid());
    assert.equal(response.status, 503);
    const metrics = await scrape(authz.metricsUrl);
    assert.equal(
      sampleValue(metrics, 'notegate_decisions_total', { decision: 'deny', reason: 'replay_store_unavailable' }),
      1,
    );
    const failures = ['unreachable', 'timeout', 'error'].map((failure) =>
      sampleValue(metrics, 'notegate_replay_store_errors_total', { store: 'redis', failure }),
    );
    assert.equal(
      failures.reduce((a, b) => a + b),
      1,
    );
    assert.equal(metrics.get('notegate_replay_store_live_entries')?.metrics.length, 0, 'no sample without a store');
  });
});
