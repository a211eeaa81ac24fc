// The crypto ceiling of one token: one ES256 JWT-SVID verification plus one ES256 access-token
// signature with jose and pre-imported keys, in a tight loop, sequentially and with 32 in flight
// (the servers see many requests in flight, so the higher of the two is the ceiling).
// Usage: node ceiling.mjs <fixtures-dir> <seconds>  → prints one JSON line.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { importJWK, SignJWT } from 'jose';
import { AUTHZ_ISSUER, publicOf, SUBJECT, verifyAndSign } from './fixtures.mjs';

const [dir, secondsText = '4'] = process.argv.slice(2);
const seconds = Number(secondsText);
const keys = JSON.parse(await readFile(join(dir, 'keys.json'), 'utf8'));
const idpPrivate = await importJWK(keys.idp, 'ES256');
const idpPublic = await importJWK(publicOf(keys.idp), 'ES256');
const asPrivate = await importJWK(keys.as, 'ES256');
const nowS = Math.floor(Date.now() / 1000);
const svid = await new SignJWT({ aud: [AUTHZ_ISSUER], jti: 'ceiling' })
  .setProtectedHeader({ alg: 'ES256', kid: keys.idp.kid, typ: 'JWT' })
  .setSubject(SUBJECT)
  .setIssuedAt(nowS)
  .setExpirationTime(nowS + 300)
  .sign(idpPrivate);
const oneToken = () => verifyAndSign(svid, idpPublic, asPrivate, keys.as.kid);

/** Tokens per wall-clock second and per CPU second (all threads: WebCrypto runs on the thread pool). */
async function measure(inFlight, durationS) {
  let done = 0;
  const deadline = performance.now() + durationS * 1000;
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const worker = async () => {
    while (performance.now() < deadline) {
      await oneToken();
      done += 1;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  const cpu = process.cpuUsage(cpuBefore);
  return { perS: done / ((performance.now() - started) / 1000), perCpuS: done / ((cpu.user + cpu.system) / 1e6) };
}

await measure(32, 0.5);
const sequential = await measure(1, seconds / 2);
const concurrent = await measure(32, seconds / 2);
console.log(JSON.stringify({ sequential, concurrent }));
