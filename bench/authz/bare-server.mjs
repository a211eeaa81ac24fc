// The HTTP-server floor of a token endpoint: node:http, the form parsed with URLSearchParams, one
// jose ES256 verification of the assertion and one ES256 signature, no checks, no audit, no state.
// Shows what node:http plus jose cost before any of notegate's own work.
// Usage: node bare-server.mjs <fixtures-dir>  → prints "listening on <url>".
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { CompactSign, compactVerify, importJWK } from 'jose';
import { AUTHZ_ISSUER, publicOf, RESOURCE, SUBJECT } from './fixtures.mjs';

const [dir] = process.argv.slice(2);
const keys = JSON.parse(await readFile(join(dir, 'keys.json'), 'utf8'));
const idpPublic = await importJWK(publicOf(keys.idp), 'ES256');
const asPrivate = await importJWK(keys.as, 'ES256');
const encoder = new TextEncoder();

async function token(body) {
  const assertion = new URLSearchParams(body).get('client_assertion') ?? '';
  await compactVerify(assertion, idpPublic, { algorithms: ['ES256'] });
  const nowS = Math.floor(Date.now() / 1000);
  const claims = {
    iss: AUTHZ_ISSUER,
    sub: SUBJECT,
    client_id: SUBJECT,
    aud: RESOURCE,
    scope: 'notes:read',
    iat: nowS,
    exp: nowS + 300,
    jti: randomBytes(16).toString('hex'),
  };
  return new CompactSign(encoder.encode(JSON.stringify(claims)))
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: keys.as.kid })
    .sign(asPrivate);
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    token(Buffer.concat(chunks).toString()).then(
      (accessToken) => {
        const body = JSON.stringify({
          access_token: accessToken,
          token_type: 'Bearer',
          expires_in: 300,
          scope: 'notes:read',
        });
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
        res.end(body);
      },
      () => {
        res.writeHead(401).end();
      },
    );
  });
});
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}/`));
