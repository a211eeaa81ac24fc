import { sign } from 'node:crypto';
import { randomHex } from '../shared/random-hex.js';
import type { AccessTokenSigningKey } from './signing/signing-key.js';

/** Spec "Limits": access token lifetime 300 s, fixed. */
export const ACCESS_TOKEN_LIFETIME_S = 300;

/** 128 random bits: unguessable and unique for all practical purposes. */
export const ACCESS_TOKEN_JTI_BYTES = 16;

/** The access token claims (RFC 9068 §2.2), in the order of docs/protocol.md#access-token. */
export interface AccessTokenClaims {
  readonly iss: string;
  readonly sub: string;
  readonly client_id: string;
  readonly aud: string;
  readonly scope: string;
  readonly iat: number;
  readonly exp: number;
  readonly jti: string;
}

export interface AccessTokenGrant {
  readonly issuer: string;
  readonly spiffeId: string;
  /** The resource, one trailing slash already removed. */
  readonly audience: string;
  /** Sorted, single-spaced. */
  readonly scope: string;
  readonly nowS: number;
}

export function accessTokenClaims(grant: AccessTokenGrant): AccessTokenClaims {
  return {
    iss: grant.issuer,
    sub: grant.spiffeId,
    client_id: grant.spiffeId,
    aud: grant.audience,
    scope: grant.scope,
    iat: grant.nowS,
    exp: grant.nowS + ACCESS_TOKEN_LIFETIME_S,
    jti: randomHex(ACCESS_TOKEN_JTI_BYTES),
  };
}

/**
 * RFC 9068 §2.1: typ at+jwt; docs/protocol.md#access-token: alg ES256 and the kid of the signing key.
 * The header is fixed per key, so the compact JWS (RFC 7515 §7.1) is the encoded header, the encoded
 * claims and an ES256 signature over both: R and S as 32 bytes each (RFC 7518 §3.4), which is what
 * node:crypto's ieee-p1363 encoding gives. Signing synchronously here avoids the thread-pool hand-off
 * of WebCrypto (docs/protocol.md#signing-keys); every verifier of these tokens stays on jose.
 */
export function signAccessToken(key: AccessTokenSigningKey, claims: AccessTokenClaims): string {
  const signingInput = `${key.encodedHeader}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  const signature = sign('sha256', Buffer.from(signingInput), { key: key.privateKey, dsaEncoding: 'ieee-p1363' });
  return `${signingInput}.${signature.toString('base64url')}`;
}
