#!/usr/bin/env node
// Cost of our JWT-SVID verification against bare jose with a pre-imported key, in one run; then the
// cost of refusing a payload nested thousands of levels deep against decoding a normal token.
// Run after `npx tsc -b`: node bench/spiffe/verify-svid.mjs [seconds-per-case, default 3]
// Cases run interleaved in rounds and report the median round, so a noisy neighbour on the shared
// machine hits every case alike.
import { compactVerify, exportJWK, generateKeyPair, jwtVerify, SignJWT } from 'jose';
import { MemoryBundleSource } from '../../auth/dist/src/spiffe/bundles/memory-bundle-source.js';
import { decodeSvid } from '../../auth/dist/src/spiffe/svid/decode.js';
import { verifyJwtSvid } from '../../auth/dist/src/spiffe/svid/verify-jwt-svid.js';

const SECONDS = Number(process.argv[2] ?? 3);
const ROUNDS = 6;
const AUDIENCE = 'http://127.0.0.1:8080';
const TRUST_DOMAIN = 'example.org';

async function fixture(alg) {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  const kid = `bench-${alg}`;
  const nowS = Math.floor(Date.now() / 1000);
  const token = await new SignJWT({ aud: [AUDIENCE], jti: 'bench' })
    .setProtectedHeader({ alg, kid, typ: 'JWT' })
    .setSubject('spiffe://example.org/agent')
    .setIssuedAt(nowS)
    .setExpirationTime(nowS + 300)
    .sign(privateKey);
  const bundles = new MemoryBundleSource();
  await bundles.set(new Map([[TRUST_DOMAIN, { keys: [{ ...(await exportJWK(publicKey)), kid }] }]]));
  return { alg, token, publicKey, bundles };
}

/** Runs each case for SECONDS in ROUNDS interleaved rounds; the median ops/s per case. */
async function interleaved(cases) {
  for (const [, run] of cases) for (let i = 0; i < 500; i++) await run();
  const rounds = cases.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, [, run]] of cases.entries()) rounds[index].push(await measure(run, SECONDS / ROUNDS));
  }
  return cases.map(([name], index) => [name, median(rounds[index])]);
}

async function measure(run, seconds) {
  let count = 0;
  const started = process.hrtime.bigint();
  const deadline = started + BigInt(Math.round(seconds * 1e9));
  while (process.hrtime.bigint() < deadline) {
    for (let i = 0; i < 50; i++) await run();
    count += 50;
  }
  const elapsedS = Number(process.hrtime.bigint() - started) / 1e9;
  return count / elapsedS;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const rows = [];
for (const alg of ['ES256', 'RS256']) {
  const { token, publicKey, bundles } = await fixture(alg);
  const cases = [
    ['jose jwtVerify (pre-imported key)', () => jwtVerify(token, publicKey, { algorithms: [alg], audience: AUDIENCE })],
    ['jose compactVerify (pre-imported key)', () => compactVerify(token, publicKey, { algorithms: [alg] })],
    [
      'notegate verifyJwtSvid (bundle source)',
      () => verifyJwtSvid(token, { bundles, trustDomain: TRUST_DOMAIN, audience: AUDIENCE }),
    ],
  ];
  const results = await interleaved(cases);
  const baseline = results[0][1];
  for (const [name, opsPerS] of results) rows.push({ alg, name, opsPerS, ratio: opsPerS / baseline });
}

console.log(
  `node ${process.version}, ${SECONDS} s per case in ${ROUNDS} interleaved rounds (median), sequential awaits\n`,
);
console.log(`${'alg'.padEnd(6)} ${'case'.padEnd(40)} ${'ops/s'.padStart(9)} ${'vs jwtVerify'.padStart(13)}`);
for (const row of rows) {
  const ops = Math.round(row.opsPerS).toLocaleString('en-US');
  console.log(`${row.alg.padEnd(6)} ${row.name.padEnd(40)} ${ops.padStart(9)} ${row.ratio.toFixed(2).padStart(13)}`);
}

// Hostile input: the deepest nesting that fits the size limit, refused by the depth check.
const normal = (await fixture('ES256')).token;
const deep = `${Buffer.from('{"alg":"ES256"}').toString('base64url')}.${Buffer.from(`{"a":${'['.repeat(6000)}${']'.repeat(6000)}}`).toString('base64url')}.c2ln`;
const refuse = () => {
  try {
    decodeSvid(deep);
  } catch {
    return;
  }
  throw new Error('the nested payload was accepted');
};
const decoding = await interleaved([
  ['decodeSvid, a normal token', () => decodeSvid(normal)],
  ['decodeSvid, payload nested 6000 deep (refused)', refuse],
]);
console.log(`\n${'case'.padEnd(47)} ${'ops/s'.padStart(9)} ${'µs/op'.padStart(8)} ${'× normal'.padStart(10)}`);
for (const [name, opsPerS] of decoding) {
  const ops = Math.round(opsPerS).toLocaleString('en-US');
  const ratio = (decoding[0][1] / opsPerS).toFixed(1);
  console.log(`${name.padEnd(47)} ${ops.padStart(9)} ${(1e6 / opsPerS).toFixed(1).padStart(8)} ${ratio.padStart(10)}`);
}
