import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { describe, it } from 'node:test';
import { compactVerify, createLocalJWKSet, decodeProtectedHeader, importJWK, jwtVerify } from 'jose';
import { accessTokenClaims, signAccessToken } from '../../../src/authz/access-token.js';
import { parseSigningKeyFile, privateKeyEntry } from '../../../src/authz/signing/key-file.js';
import { ACCESS_TOKEN_LIFETIME_S } from '../../../src/oauth/access-token.js';

function entry(kid: string) {
  return privateKeyEntry(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey, kid);
}

const fileOf = (...keys: unknown[]) => JSON.stringify({ keys });

describe('parseSigningKeyFile', () => {
  it('takes a JWK Set of private P-256 keys: the first signs, every public part is published', async () => {
    const [a, b] = [entry('key-a'), entry('key-b')];
    const set = await parseSigningKeyFile(fileOf(a, b));
    assert.equal(set.signing.kid, 'key-a');
    assert.deepEqual(
      set.jwks.keys.map((key) => key.kid),
      ['key-a', 'key-b'],
    );
    for (const published of set.jwks.keys) {
      assert.equal(published.d, undefined, 'no private member is published');
      assert.equal(published.alg, 'ES256');
      assert.equal(published.use, 'sig');
    }
    assert.equal(set.jwks.keys[1]?.x, b.x);
  });

  it('ignores members it does not use, as RFC 7517 asks', async () => {
    const set = await parseSigningKeyFile(fileOf({ ...entry('k'), key_ops: ['sign'], ext: true }));
    assert.equal(set.signing.kid, 'k');
  });

  const good = entry('good');
  const other = entry('other');
  const cases: ReadonlyArray<readonly [string, string, RegExp]> = [
    ['not JSON', '{keys', /^not JSON \(the parser message is withheld/],
    ['no keys member', '{}', /^keys: /],
    ['an empty key list', fileOf(), /^keys: must hold at least one key/],
    ['a key that is not an object', fileOf('x'), /^keys\[0\]: must be a private P-256 JWK/],
    ['an RSA key', fileOf({ ...good, kty: 'RSA' }), /^keys\[0\]\.kty: must be "EC"/],
    ['a P-384 key', fileOf({ ...good, crv: 'P-384' }), /^keys\[0\]\.crv: must be "P-256"/],
    ['a public key only', fileOf({ ...good, d: undefined }), /^keys\[0\]\.d: /],
    ['no kid', fileOf({ ...good, kid: undefined }), /^keys\[0\]\.kid: is required/],
    ['an empty kid', fileOf({ ...good, kid: '' }), /^keys\[0\]\.kid: must be 1 to 256 printable/],
    ['another alg', fileOf({ ...good, alg: 'ES384' }), /^keys\[0\]\.alg: must be "ES256"/],
    ['another use', fileOf({ ...good, use: 'enc' }), /^keys\[0\]\.use: must be "sig"/],
    ['a kid twice', fileOf(good, { ...other, kid: 'good' }), /^keys\[1\]\.kid: 'good' duplicates keys\[0\]\.kid/],
    [
      'x and y of another key',
      fileOf({ ...good, x: other.x, y: other.y }),
      /^keys\[0\]: x and y are not the public key of d/,
    ],
    ['x of one key and y of another', fileOf({ ...good, y: other.y }), /^keys\[0\]: not a usable P-256 private key/],
    ['d of no key', fileOf({ ...good, d: 'A'.repeat(43) }), /^keys\[0\]: not a usable P-256 private key/],
    ['a short d', fileOf({ ...good, d: 'AQ' }), /^keys\[0\]\.d: must encode exactly 32 bytes/],
    ['padding in base64url', fileOf({ ...good, x: `${good.x}=` }), /^keys\[0\]\.x: must be base64url/],
  ];
  for (const [what, text, message] of cases) {
    it(`refuses ${what}, naming the entry`, async () => {
      await assert.rejects(parseSigningKeyFile(text), { message });
    });
  }
});

describe('parseSigningKeyFile on a malformed file holding private keys', () => {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const { d } = privateKeyEntry(privateKey, 'k');
  const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  const pemBody = pem.split('\n').slice(1, -2).join('');
  const valid = fileOf(privateKeyEntry(privateKey, 'k'));
  const cases: ReadonlyArray<readonly [string, string, string]> = [
    ['a PEM file', pem, pemBody],
    ['a PEM body without its armour', pemBody, pemBody],
    ['d without quotes', valid.replace(`"${d}"`, d), d],
    ['a stray character after d', valid.replace(`"${d}"`, `"${d}"x`), d],
    ['d split by a quote', valid.replace(d, `${d.slice(0, 20)}"${d.slice(20)}`), d],
    ['a file cut inside d', valid.slice(0, valid.indexOf(d) + 30), d],
  ];
  for (const [what, text, secret] of cases) {
    it(`says what is wrong with ${what} without quoting any of its key material`, async () => {
      const message = await parseSigningKeyFile(text).then(
        () => assert.fail('a malformed file was accepted'),
        (err: unknown) => (err instanceof Error ? err.message : String(err)),
      );
      assert.match(message, /^not JSON/);
      for (let at = 0; at + 6 <= secret.length; at++) {
        assert.ok(!message.includes(secret.slice(at, at + 6)), `"${message}" quotes the key`);
      }
    });
  }
});

describe('signAccessToken', () => {
  it('signs with the first key; jose verifies the token with the published key set', async () => {
    const set = await parseSigningKeyFile(fileOf(entry('first'), entry('second')));
    const claims = accessTokenClaims({
      issuer: 'http://authz.test',
      spiffeId: 'spiffe://example.org/agent',
      audience: 'http://notes.test/mcp',
      scope: 'notes:read',
      nowS: Math.floor(Date.now() / 1000),
      lifetimeS: ACCESS_TOKEN_LIFETIME_S,
    });
    const token = await signAccessToken(set.signing, claims);
    assert.deepEqual(decodeProtectedHeader(token), { alg: 'ES256', typ: 'at+jwt', kid: 'first' });
    const { payload } = await jwtVerify(token, createLocalJWKSet({ keys: [...set.jwks.keys] }), {
      algorithms: ['ES256'],
      typ: 'at+jwt',
      issuer: 'http://authz.test',
      audience: 'http://notes.test/mcp',
    });
    assert.deepEqual(payload, { ...claims });
    // The other published key does not verify it: the signature is bound to the first key.
    const other = await importJWK({ ...set.jwks.keys[1] }, 'ES256');
    await assert.rejects(compactVerify(token, other));
  });
});
