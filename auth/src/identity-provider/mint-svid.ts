import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import type { SigningKey } from './key-ring.js';

export interface SvidRequest {
  readonly spiffeId: string;
  readonly audience: readonly string[];
  readonly nowS: number;
  readonly ttlS: number;
}

/**
 * A JWT-SVID as SPIRE mints one (header alg, kid, typ JWT; claims sub, aud as an array, iat, exp),
 * plus a fresh jti on every call so the token service's reject-replay mode works against it.
 */
export function mintJwtSvid(key: SigningKey, request: SvidRequest): Promise<string> {
  return new SignJWT({ aud: [...request.audience], jti: randomBytes(16).toString('base64url') })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' })
    .setSubject(request.spiffeId)
    .setIssuedAt(request.nowS)
    .setExpirationTime(request.nowS + request.ttlS)
    .sign(key.privateKey);
}
