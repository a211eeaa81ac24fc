import { randomHex } from '@notegate/kit';
import { CompactSign } from 'jose';
import type { AccessTokenSigningKey } from './signing/signing-key.js';

/** docs/protocol.md#limits: access token lifetime 300 s, fixed. */
export const ACCESS_TOKEN_LIFETIME_S = 300;

/** 128 random bits: unguessable and unique for all practical purposes. */
const ACCESS_TOKEN_JTI_BYTES = 16;

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
  readonly lifetimeS: number;
}

export function accessTokenClaims(grant: AccessTokenGrant): AccessTokenClaims {
  return {
    iss: grant.issuer,
    sub: grant.spiffeId,
    client_id: grant.spiffeId,
    aud: grant.audience,
    scope: grant.scope,
    iat: grant.nowS,
    exp: grant.nowS + grant.lifetimeS,
    jti: randomHex(ACCESS_TOKEN_JTI_BYTES),
  };
}

const encoder = new TextEncoder();

/** RFC 9068 §2.1: typ at+jwt; docs/protocol.md#access-token: alg ES256 and the kid of the signing key. */
export function signAccessToken(key: AccessTokenSigningKey, claims: AccessTokenClaims): Promise<string> {
  return new CompactSign(encoder.encode(JSON.stringify(claims)))
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: key.kid })
    .sign(key.privateKey);
}
