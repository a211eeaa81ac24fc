import type { KeyObject } from 'node:crypto';
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import type { JWK } from 'jose';
import { calculateJwkThumbprint } from 'jose';

/** An access-token signing key (docs/protocol.md#access-token): P-256, used for ES256. */
export interface AccessTokenSigningKey {
  readonly kid: string;
  /** node:crypto key: tokens are signed synchronously (docs/protocol.md#signing-keys). */
  readonly privateKey: KeyObject;
  /** As published in /jwks.json: the public key with kid, alg ES256 and use sig. */
  readonly publicJwk: JWK;
  /** base64url of the fixed JWS protected header `{"alg":"ES256","typ":"at+jwt","kid":…}` (RFC 7515 §7.1). */
  readonly encodedHeader: string;
}

/** The key of a private P-256 key object, under `kid`. */
export function accessTokenSigningKey(privateKey: KeyObject, kid: string): AccessTokenSigningKey {
  const { kty, crv, x, y } = createPublicKey(privateKey).export({ format: 'jwk' });
  const header = JSON.stringify({ alg: 'ES256', typ: 'at+jwt', kid });
  return {
    kid,
    privateKey,
    publicJwk: { kty, crv, x, y, kid, alg: 'ES256', use: 'sig' },
    encodedHeader: Buffer.from(header).toString('base64url'),
  };
}

/** A new P-256 key in memory, its kid the RFC 7638 thumbprint of its public key. */
export async function generateAccessTokenSigningKey(): Promise<AccessTokenSigningKey> {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return accessTokenSigningKey(privateKey, await thumbprintKid(privateKey));
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

/** Keys that never change: the spec's generated key, or keys a test injects. */
export function fixedSigningKeys(set: SigningKeySet): SigningKeySource {
  return { current: () => set };
}
