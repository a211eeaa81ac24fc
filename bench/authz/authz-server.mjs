// notegate's token service composed as the CLI composes it (startAuthz), for the throughput runs,
// metrics included, with the in-memory replay store or, given a redis:// URL, the Redis store. One deliberate
// difference from the CLI in memory: no 10,000-entry cap, so a run of tens of thousands of unique
// SVIDs in reject mode measures the real per-request path (lookup, heap insert, eviction) instead of
// hitting the cap after 10,000 requests. The capped CLI is measured separately.
// Usage: node authz-server.mjs <fixtures-dir> [redis://…]  → prints "listening on <url>".
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AuditLog, fileSink } from '../../auth/dist/src/audit/audit-log.js';
import { startAuthz } from '../../auth/dist/src/authz/authz-server.js';
import { observedReplayStore } from '../../auth/dist/src/authz/replay/observed-replay-store.js';
import { RedisReplayStore } from '../../auth/dist/src/authz/replay/redis-replay-store.js';
import { ReplayCache } from '../../auth/dist/src/authz/replay/replay-cache.js';
import { parseReplayStore } from '../../auth/dist/src/cli/replay-store-option.js';
import { AuthzMetrics } from '../../auth/dist/src/metrics/authz-metrics.js';
import { parsePolicy } from '../../auth/dist/src/policy/policy-file.js';
import { fixedPolicy } from '../../auth/dist/src/policy/policy-source.js';
import { MemoryBundleSource } from '../../auth/dist/src/spiffe/bundles/memory-bundle-source.js';
import { AUTHZ_ISSUER } from './fixtures.mjs';

const [dir, redisUrl] = process.argv.slice(2);
const policy = parsePolicy(await readFile(join(dir, 'policy.yaml'), 'utf8'), 'policy.yaml');
const bundles = new MemoryBundleSource();
await bundles.set(new Map([[policy.trustDomain, JSON.parse(await readFile(join(dir, 'bundle.json'), 'utf8'))]]));
const { sink } = fileSink(join(dir, redisUrl ? 'authz-redis-audit.log' : 'authz-audit.log'));
const store = redisUrl ? await connectedRedisStore(redisUrl) : new ReplayCache({ capacity: Number.MAX_SAFE_INTEGER });
// The metrics the CLI always keeps (served only with --metrics-port), so their cost is measured too.
const metrics = new AuthzMetrics();
const replayStore = observedReplayStore(store, metrics.replayStore(store));
const authz = await startAuthz({
  issuer: AUTHZ_ISSUER,
  policy: fixedPolicy(policy),
  bundles,
  replayMode: 'reject',
  replayStore,
  metrics,
  maxSvidLifetimeS: 300,
  audit: new AuditLog(sink),
  host: '127.0.0.1',
  port: 0,
});
console.log(`listening on ${authz.url.href}`);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    authz.close().then(() => process.exit(0));
  });
}

/** The Redis store as the CLI opens it (default capacity, the issuer as namespace), once it has connected. */
async function connectedRedisStore(url) {
  const choice = parseReplayStore('redis url', url, undefined);
  let connected;
  const ready = new Promise((resolve) => {
    connected = resolve;
  });
  const store = new RedisReplayStore({
    connection: choice.connection,
    namespace: AUTHZ_ISSUER,
    onEvent: (message) => {
      if (message.endsWith(': connected')) connected();
    },
  });
  await ready;
  return store;
}
