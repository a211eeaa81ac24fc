import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  InvalidBundleError,
  importJwtBundle,
  importJwtBundleBytes,
} from '../../../src/spiffe/bundles/import-bundle.js';
import { testKey } from '../../support/svid-fixtures.js';

const ec = testKey('P-256', 'ec-1');
const rsa = testKey('rsa-2048', 'rsa-1');

describe('importJwtBundle', () => {
  it('imports a plain JWKS (as the Workload API serves it) once per allowed algorithm of each key', async () => {
    const bundle = await importJwtBundle({ keys: [ec.publicJwk, rsa.publicJwk] });
    assert.deepEqual([...bundle.keys.keys()], ['ec-1', 'rsa-1']);
    assert.deepEqual([...(bundle.keys.get('ec-1')?.keys.keys() ?? [])], ['ES256']);
    assert.equal(bundle.keys.get('ec-1')?.crv, 'P-256');
    assert.deepEqual([...(bundle.keys.get('rsa-1')?.keys.keys() ?? [])], ['RS256', 'RS384', 'RS512', 'PS256', 'PS384']);
  });

  it('reads a SPIFFE bundle: only use jwt-svid keys count, spiffe_* members are kept', async () => {
    const bundle = await importJwtBundle({
      spiffe_sequence: 7,
      spiffe_refresh_hint: 300,
      keys: [
        { ...ec.publicJwk, use: 'jwt-svid' },
        { ...rsa.publicJwk, use: 'x509-svid' },
        { ...testKey('P-256', 'no-use').publicJwk },
      ],
    });
    assert.deepEqual([...bundle.keys.keys()], ['ec-1']);
    assert.equal(bundle.sequence, 7);
    assert.equal(bundle.refreshHintS, 300);
    assert.equal(bundle.ignored.length, 2);
  });

  it('ignores keys without kid, of unknown type, with small RSA moduli, and keys whose alg is not allowed', async () => {
    const { kid: _kid, ...noKid } = ec.publicJwk;
    const bundle = await importJwtBundle({
      keys: [
        noKid,
        { kty: 'OKP', crv: 'Ed25519', x: 'AAAA', kid: 'ed' },
        testKey('rsa-1024', 'small').publicJwk,
        { ...rsa.publicJwk, kid: 'rsa-ps512', alg: 'PS512' },
        { ...rsa.publicJwk, kid: 'rsa-rs384', alg: 'RS384' },
        'not a key',
      ],
    });
    assert.deepEqual([...bundle.keys.keys()], ['rsa-rs384']);
    assert.deepEqual([...(bundle.keys.get('rsa-rs384')?.keys.keys() ?? [])], ['RS384']);
    assert.equal(bundle.ignored.length, 5);
  });

  it('imports only the public part of a JWK that carries a private key', async () => {
    const bundle = await importJwtBundle({ keys: [{ ...ec.privateKey.export({ format: 'jwk' }), kid: 'leaky' }] });
    assert.equal(bundle.keys.get('leaky')?.keys.get('ES256')?.type, 'public');
  });

  const invalid: ReadonlyArray<readonly [string, unknown]> = [
    ['a document without keys', { spiffe_sequence: 1 }],
    ['keys that is not an array', { keys: {} }],
    ['a negative spiffe_sequence', { keys: [], spiffe_sequence: -1 }],
    ['a duplicate kid', { keys: [ec.publicJwk, { ...testKey('P-256', 'x').publicJwk, kid: 'ec-1' }] }],
    ['broken key material', { keys: [{ ...ec.publicJwk, x: 'AAAA' }] }],
  ];
  for (const [what, document] of invalid) {
    it(`refuses ${what} as invalid`, async () => {
      await assert.rejects(importJwtBundle(document), InvalidBundleError);
    });
  }
  it('refuses bytes that are not JSON', async () => {
    await assert.rejects(importJwtBundleBytes('{"keys": ['), /not JSON/);
  });
});
