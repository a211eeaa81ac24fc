import { randomHex } from '@notegate/kit';
import { CompactSign } from 'jose';
import { ACCESS_TOKEN_ALG, ACCESS_TOKEN_TYP, type IssuedAccessToken } from '../oauth/access-token.js';
import type { AccessTokenSigningKey } from './signing/signing-key.js';

/** 128 random bits: unguessable and unique for all practical purposes. */
const ACCESS_TOKEN_JTI_BYTES = 16;

export interface AccessTokenGrant {
  readonly issuer: string;
  readonly spiffeId: string;
  /** The resource in the resource form (docs/protocol.md#identifiers). */
  readonly audience: string;
  /** Sorted, single-spaced. */
  readonly scope: string;
  readonly nowS: number;
  readonly lifetimeS: number;
}

export function accessTokenClaims(grant: AccessTokenGrant): IssuedAccessToken {
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
export function signAccessToken(key: AccessTokenSigningKey, claims: IssuedAccessToken): Promise<string> {
  return new CompactSign(encoder.encode(JSON.stringify(claims)))
    .setProtectedHeader({ alg: ACCESS_TOKEN_ALG, typ: ACCESS_TOKEN_TYP, kid: key.kid })
    .sign(key.privateKey);
}
