#!/usr/bin/env node
// The replay-store flood (docs/security.md#shared-capacity-secrets-and-operators-tools): a workload floods
// `notegate authz` (reject mode) with fresh, valid SVIDs while granted clients ask for tokens, this
// checkout against another built one (--before DIR), with the in-memory store and, where redis-server is
// installed, the Redis store. Two floods: a SPIFFE ID the policy does not name, and a granted one. The
// store is filled first (the flooder sends as many SVIDs as the store holds), then the flood goes on
// while the granted clients ask, one request each every 50 ms; the table gives their success rate.
//   node bench/hardening/replay-flood.mjs [--before DIR]     (env BENCH_SECONDS=8, BENCH_REPLAY_CAPACITY=2000)
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompactSign, exportJWK, generateKeyPair } from 'jose';
import { startRedis } from '../authz/processes.mjs';
import { checkouts, notegateCli, printTable, sleep, startServer } from './support.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CAPACITY = Number(process.env.BENCH_REPLAY_CAPACITY ?? 2_000);
const FLOODERS = 8;
const CLIENTS = 2;
const CLIENT_INTERVAL_MS = 50;
const ISSUER = 'http://authz.bench';
const RESOURCE = 'http://127.0.0.1:9/mcp';
const AGENT = 'spiffe://example.org/agent';
const READER = 'spiffe://example.org/reader';
const STRANGER = 'spiffe://example.org/stranger';
const POLICY = `trust_domain: example.org
grants:
  - spiffe_id: ${AGENT}
    resources:
      - resource: ${RESOURCE}
        scopes: [notes:read]
  - spiffe_id: ${READER}
    resources:
      - resource: ${RESOURCE}
        scopes: [notes:read]
`;
const KID = 'bench-idp';
const hasRedis = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;

const { privateKey, publicKey } = await generateKeyPair('ES256');
const encoder = new TextEncoder();

/** A fresh JWT-SVID of `sub` for this issuer, as the identity provider would mint it. */
function svid(sub) {
  const nowS = Math.floor(Date.now() / 1000);
  const claims = { sub, aud: [ISSUER], iat: nowS, exp: nowS + 300, jti: randomBytes(12).toString('hex') };
  return new CompactSign(encoder.encode(JSON.stringify(claims)))
    .setProtectedHeader({ alg: 'ES256', kid: KID, typ: 'JWT' })
    .sign(privateKey);
}

/** One token request with a fresh SVID of `sub`; resolves with the status (0 when the request failed). */
async function ask(url, sub) {
  const body = new URLSearchParams({
    grant_type: 'client_credentials',
    client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-spiffe',
    client_assertion: await svid(sub),
    resource: RESOURCE,
    scope: 'notes:read',
  });
  try {
    const res = await fetch(`${url}/token`, { method: 'POST', body });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0;
  }
}

function count(statuses, status) {
  statuses.set(status, (statuses.get(status) ?? 0) + 1);
}

/** Floods with `sub` until `stop()`; `sent` counts the requests answered so far. */
function flood(url, sub) {
  const statuses = new Map();
  let running = true;
  let sent = 0;
  const loops = Array.from({ length: FLOODERS }, async () => {
    while (running) {
      count(statuses, await ask(url, sub));
      sent += 1;
    }
  });
  return {
    statuses,
    sent: () => sent,
    stop: async () => {
      running = false;
      await Promise.all(loops);
    },
  };
}

/** The granted clients: each asks for a token every 50 ms for `seconds`. */
async function grantedClients(url, seconds) {
  const statuses = new Map();
  const untilMs = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (Date.now() < untilMs) {
        const startedMs = Date.now();
        count(statuses, await ask(url, AGENT));
        await sleep(Math.max(0, CLIENT_INTERVAL_MS - (Date.now() - startedMs)));
      }
    }),
  );
  return statuses;
}

/** Why the granted clients were refused, from the audit lines: each detail and how often. */
function grantedRefusals(auditLog) {
  const details = new Map();
  for (const line of readFileSync(auditLog, 'utf8').split('\n')) {
    if (!line) continue;
    const entry = JSON.parse(line);
    if (entry.spiffe_id !== AGENT || entry.decision !== 'deny') continue;
    const detail = /\((.*)\)$/.exec(entry.reason)?.[1] ?? entry.reason;
    details.set(detail, (details.get(detail) ?? 0) + 1);
  }
  return [...details].map(([detail, n]) => `${n}× ${detail.replace(/\d+/g, 'N')}`).join('; ') || '-';
}

const describe = (statuses) =>
  [...statuses]
    .sort(([a], [b]) => a - b)
    .map(([status, n]) => `${n}×${status}`)
    .join(' ');

const dir = await mkdtemp(join(tmpdir(), 'bench-replay-flood-'));
const rows = [];
const redis = hasRedis ? await startRedis(0, dir) : undefined;
let database = 0;
try {
  await writeFile(join(dir, 'policy.yaml'), POLICY);
  const jwk = { ...(await exportJWK(publicKey)), kid: KID, use: 'jwt-svid' };
  await writeFile(join(dir, 'bundle.json'), JSON.stringify({ keys: [jwk] }));
  const stores = ['memory', ...(redis ? ['redis'] : [])];
  for (const { label, root } of checkouts()) {
    for (const store of stores) {
      for (const flooder of [STRANGER, READER]) {
        // A database of its own for every run, so nothing of the last one counts.
        const storeFlag = store === 'memory' ? 'memory' : redis.url.replace(/\/0$/, `/${++database}`);
        await rm(join(dir, `audit-${label}.log`), { force: true });
        const server = await startServer([
          notegateCli(root),
          'authz',
          ...['--issuer', ISSUER, '--host', '127.0.0.1', '--port', '0', '--policy', join(dir, 'policy.yaml')],
          ...['--jwt-bundle', join(dir, 'bundle.json'), '--audit-log', join(dir, `audit-${label}.log`)],
          ...['--replay-store', storeFlag, '--replay-capacity', String(CAPACITY)],
        ]);
        try {
          if ((await ask(server.url, AGENT)) !== 200)
            throw new Error(`${label}: the granted client is refused at rest`);
          const attack = flood(server.url, flooder);
          while (attack.sent() < CAPACITY) await sleep(20);
          const granted = await grantedClients(server.url, SECONDS);
          await attack.stop();
          const auditLog = join(dir, `audit-${label}.log`);
          const ok = granted.get(200) ?? 0;
          const total = [...granted.values()].reduce((sum, n) => sum + n, 0);
          rows.push([
            label,
            store,
            flooder === STRANGER ? 'not in the policy' : 'granted',
            describe(attack.statuses),
            describe(granted),
            `${((100 * ok) / total).toFixed(1)}%`,
            grantedRefusals(auditLog),
          ]);
        } finally {
          await server.stop();
        }
      }
    }
  }
} finally {
  await redis?.stop();
  await rm(dir, { recursive: true, force: true });
}
printTable(
  `Replay-store flood: ${FLOODERS} loops of fresh valid SVIDs of one SPIFFE ID against authz (reject mode, --replay-capacity ${CAPACITY}), ` +
    `${CLIENTS} granted clients asking every ${CLIENT_INTERVAL_MS} ms for ${SECONDS} s once the flooder has sent ${CAPACITY}`,
  [
    'authz',
    'store',
    'flooder',
    "flooder's answers",
    "granted clients' answers",
    'granted success',
    'why granted ones were refused (audit)',
  ],
  rows,
);
