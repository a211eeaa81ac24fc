// notegate's token service composed as the CLI composes it (startAuthz), for the throughput runs.
// One deliberate difference: the replay cache has no 10,000-entry cap, so a run of tens of
// thousands of unique SVIDs in reject mode measures the real per-request path (lookup, heap insert,
// eviction) instead of hitting the cap after 10,000 requests. The capped CLI is measured separately.
// Usage: node authz-server.mjs <fixtures-dir>  → prints "listening on <url>".
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AuditLog, fileSink } from '../../auth/dist/src/audit/audit-log.js';
import { startAuthz } from '../../auth/dist/src/authz/authz-server.js';
import { ReplayCache } from '../../auth/dist/src/authz/replay-cache.js';
import { parsePolicy } from '../../auth/dist/src/policy/policy-file.js';
import { MemoryBundleSource } from '../../auth/dist/src/spiffe/bundles/memory-bundle-source.js';
import { AUTHZ_ISSUER } from './fixtures.mjs';

const [dir] = process.argv.slice(2);
const policy = parsePolicy(await readFile(join(dir, 'policy.yaml'), 'utf8'), 'policy.yaml');
const bundles = new MemoryBundleSource();
await bundles.set(new Map([[policy.trustDomain, JSON.parse(await readFile(join(dir, 'bundle.json'), 'utf8'))]]));
const { sink } = fileSink(join(dir, 'authz-audit.log'));
const authz = await startAuthz({
  issuer: AUTHZ_ISSUER,
  policy,
  bundles,
  replayMode: 'reject',
  replayCache: new ReplayCache({ capacity: Number.MAX_SAFE_INTEGER }),
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
