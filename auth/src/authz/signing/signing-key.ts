import type { KeyObject } from 'node:crypto';
import { createPublicKey } from 'node:crypto';
import type { CryptoKey, JWK } from 'jose';
import { calculateJwkThumbprint, importJWK } from 'jose';
import { generateJwsKey } from '../../shared/jws-key.js';

/** An access-token signing key (docs/protocol.md#access-token): P-256, used for ES256 with jose. */
export interface AccessTokenSigningKey {
  readonly kid: string;
  readonly privateKey: CryptoKey;
  /** As published in /jwks.json: the public key with kid, alg ES256 and use sig. */
  readonly publicJwk: JWK;
}

/** The signing key of a private P-256 key object, under `kid`: imported once, used for every signature. */
export async function accessTokenSigningKey(privateKey: KeyObject, kid: string): Promise<AccessTokenSigningKey> {
  const imported = await importJWK(privateKey.export({ format: 'jwk' }), 'ES256');
  if (imported instanceof Uint8Array) throw new Error('a symmetric key cannot sign ES256');
  const { kty, crv, x, y } = createPublicKey(privateKey).export({ format: 'jwk' });
  return { kid, privateKey: imported, publicJwk: { kty, crv, x, y, kid, alg: 'ES256', use: 'sig' } };
}

/** A new P-256 key in memory, its kid the RFC 7638 thumbprint of its public key. */
export async function generateAccessTokenSigningKey(): Promise<AccessTokenSigningKey> {
  const key = await generateJwsKey('ES256');
  return { kid: key.kid, privateKey: key.privateKey, publicJwk: { ...key.publicJwk, alg: 'ES256', use: 'sig' } };
}

/** RFC 7638 thumbprint of the public part: a stable kid derived from the key itself. */
export function thumbprintKid(privateKey: KeyObject): Promise<string> {
  const { kty, crv, x, y } = createPublicKey(privateKey).export({ format: 'jwk' });
  return calculateJwkThumbprint({ kty, crv, x, y });
}

/**
 * The keys in force: the first signs, every one is published (docs/protocol.md#signing-keys). A set
 * is never changed; a reload replaces it as a whole.
 */
export interface SigningKeySet {
  readonly signing: AccessTokenSigningKey;
  readonly keys: readonly AccessTokenSigningKey[];
  /** GET /jwks.json. */
  readonly jwks: { readonly keys: readonly JWK[] };
}

export function signingKeySet(keys: readonly [AccessTokenSigningKey, ...AccessTokenSigningKey[]]): SigningKeySet {
  return Object.freeze({
    signing: keys[0],
    keys: Object.freeze([...keys]),
    jwks: Object.freeze({ keys: Object.freeze(keys.map((key) => key.publicJwk)) }),
  });
}

/** Where the token endpoint and /jwks.json read the keys in force from, on every request. */
export interface SigningKeySource {
  current(): SigningKeySet;
}

/** Keys that never change: the key generated at start (docs/protocol.md#access-token), or keys a test injects. */
export function fixedSigningKeys(set: SigningKeySet): SigningKeySource {
  return { current: () => set };
}
