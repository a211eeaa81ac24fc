// The HTTP-server floor of a token endpoint: node:http, the form parsed with URLSearchParams, one
// jose ES256 verification of the assertion and one ES256 signature, no checks, no audit, no state.
// Shows what node:http plus jose cost before any of notegate's own work.
// Usage: node bare-server.mjs <fixtures-dir>  → prints "listening on <url>".
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { importJWK } from 'jose';
import { publicOf, verifyAndSign } from './fixtures.mjs';

const [dir] = process.argv.slice(2);
const keys = JSON.parse(await readFile(join(dir, 'keys.json'), 'utf8'));
const idpPublic = await importJWK(publicOf(keys.idp), 'ES256');
const asPrivate = await importJWK(keys.as, 'ES256');
function token(body) {
  const assertion = new URLSearchParams(body).get('client_assertion') ?? '';
  return verifyAndSign(assertion, idpPublic, asPrivate, keys.as.kid);
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
