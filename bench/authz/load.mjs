// Load generator: pre-mints one unique client assertion per request (so reject-mode replay caches
// never see a replay), then drives POST /token with autocannon's programmatic API.
// Usage: node load.mjs <fixtures-dir> <authz|oidc> <url> <warmup> <amount> <connections> [overallRate|-] [durationS]
// With durationS the run lasts that long (at most `amount` requests: mint enough for the rate).
// Prints one JSON line: tokens/s over the measured requests, status counts, latencies in ms.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { importJWK, SignJWT } from 'jose';
import { AUTHZ_ISSUER, OIDC_CLIENT_ID, OIDC_ISSUER, RESOURCE, SUBJECT } from './fixtures.mjs';

const [dir, target, url, warmupText, amountText, connectionsText, rateText, durationText] = process.argv.slice(2);
const warmup = Number(warmupText);
const amount = Number(amountText);
const connections = Number(connectionsText);
const overallRate = rateText === undefined || rateText === '-' ? undefined : Number(rateText);
const durationS = durationText === undefined ? undefined : Number(durationText);
const keys = JSON.parse(await readFile(join(dir, 'keys.json'), 'utf8'));
const nowS = Math.floor(Date.now() / 1000);

async function mintBody() {
  const jti = randomBytes(16).toString('base64url');
  const form = new URLSearchParams({ grant_type: 'client_credentials', resource: RESOURCE, scope: 'notes:read' });
  if (target === 'authz') {
    const assertion = await new SignJWT({ aud: [AUTHZ_ISSUER], jti })
      .setProtectedHeader({ alg: 'ES256', kid: keys.idp.kid, typ: 'JWT' })
      .setSubject(SUBJECT)
      .setIssuedAt(nowS)
      .setExpirationTime(nowS + 300)
      .sign(idpKey);
    form.set('client_assertion_type', 'urn:ietf:params:oauth:client-assertion-type:jwt-spiffe');
    form.set('client_assertion', assertion);
  } else {
    const assertion = await new SignJWT({ aud: OIDC_ISSUER, jti })
      .setProtectedHeader({ alg: 'ES256', kid: keys.client.kid })
      .setIssuer(OIDC_CLIENT_ID)
      .setSubject(OIDC_CLIENT_ID)
      .setIssuedAt(nowS)
      .setExpirationTime(nowS + 300)
      .sign(clientKey);
    form.set('client_id', OIDC_CLIENT_ID);
    form.set('client_assertion_type', 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
    form.set('client_assertion', assertion);
  }
  return form.toString();
}

const idpKey = await importJWK(keys.idp, 'ES256');
const clientKey = await importJWK(keys.client, 'ES256');

async function mint(count) {
  const bodies = [];
  while (bodies.length < count) {
    bodies.push(...(await Promise.all(Array.from({ length: Math.min(256, count - bodies.length) }, mintBody))));
  }
  return bodies;
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

function run(bodies, options) {
  let next = 0;
  let lastResponseAt = 0;
  const latencies = [];
  const statuses = {};
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const instance = autocannon(
      {
        url,
        connections: Math.min(connections, bodies.length),
        // autocannon ignores duration when amount is set: a timed run is bounded by its bodies instead.
        ...(options.duration === undefined ? { amount: bodies.length } : {}),
        ...options,
        requests: [
          {
            method: 'POST',
            path: new URL('/token', url).pathname,
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            setupRequest: (request) => {
              if (next >= bodies.length) throw new Error(`all ${bodies.length} pre-minted assertions used: mint more`);
              return { ...request, body: bodies[next++] };
            },
          },
        ],
      },
      (err, result) => {
        if (err) return reject(err);
        // autocannon notices `amount` on its 1 s tick; the last response marks the real end.
        const elapsedS = (lastResponseAt - started) / 1000;
        latencies.sort((a, b) => a - b);
        resolve({
          tokensPerS: (statuses[200] ?? 0) / elapsedS,
          sent: bodies.length,
          statuses,
          errors: result.errors,
          p50Ms: percentile(latencies, 50),
          p99Ms: percentile(latencies, 99),
        });
      },
    );
    instance.on('response', (_client, statusCode, _bytes, responseTimeMs) => {
      lastResponseAt = performance.now();
      statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
      latencies.push(responseTimeMs);
    });
  });
}

const warmupBodies = await mint(warmup);
const bodies = await mint(amount);
if (warmup > 0) await run(warmupBodies, {});
const result = await run(bodies, {
  ...(overallRate === undefined ? {} : { overallRate }),
  ...(durationS === undefined ? {} : { duration: durationS }),
});
console.log(JSON.stringify(result));
