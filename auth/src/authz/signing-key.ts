import type { CryptoKey, JWK } from 'jose';
import { generateJwsKey } from '../shared/jws-key.js';

/** The access-token signing key: P-256, generated in memory at start, replaced only by a restart (docs/protocol.md#access-token). */
export interface AccessTokenSigningKey {
  readonly kid: string;
  readonly privateKey: CryptoKey;
  /** As published in /jwks.json: the public key with kid, alg ES256 and use sig. */
  readonly publicJwk: JWK;
}

export async function generateAccessTokenSigningKey(): Promise<AccessTokenSigningKey> {
  const key = await generateJwsKey('ES256');
  return { kid: key.kid, privateKey: key.privateKey, publicJwk: { ...key.publicJwk, alg: 'ES256', use: 'sig' } };
}

/** GET /jwks.json: the signing key's public half is the only key. */
export function jwksDocument(key: AccessTokenSigningKey): { keys: JWK[] } {
  return { keys: [key.publicJwk] };
}
