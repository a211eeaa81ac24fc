import { describeThrown } from '@notegate/kit';
import { bearerError } from '../../errors/bearer-errors.js';
import type { AccessTokenClaims } from '../../oauth/access-token.js';
import { type Clock, epochSeconds } from '../../shared/clock.js';
import type { KeySetCache } from '../keys/key-set-cache.js';
import { checkAudience, checkExpiry, checkIssuedAt, checkIssuer, checkRequiredClaims } from './claim-checks.js';
import { checkAlgorithm, checkTokenType, requireKeyId } from './header-checks.js';
import { decodeTokenHeader } from './token-header.js';
import type { VerifiedTokenCache } from './verified-token-cache.js';
import { verifySignature } from './verify-signature.js';

export interface AccessTokenVerifierOptions {
  /** --issuer, compared exactly. */
  readonly issuer: string;
  /** Canonical resource URI (no trailing slash), compared exactly with aud. */
  readonly resource: string;
  readonly keys: KeySetCache;
  readonly clock: Clock;
  /** Largest exp - iat accepted (`--max-token-lifetime`). */
  readonly maxLifetimeS: number;
  /** Omit to verify every token in full. */
  readonly cache?: VerifiedTokenCache;
}

/** Filled in by the verifier as it goes, so a refusal after the signature check can name an authentic sub. */
export interface VerificationWitness {
  /** The token's sub once its signature verified (a non-empty string), else undefined. */
  signedSubject: string | undefined;
}

export type AccessTokenVerifier = (token: string, witness?: VerificationWitness) => Promise<AccessTokenClaims>;

/**
 * Bearer checks in the order of docs/protocol.md#bearer-checks; each step throws a typed
 * ProtocolError from the bearer registry. The scope check is per tool and runs
 * after this (see checkToolScope).
 */
export function createAccessTokenVerifier(options: AccessTokenVerifierOptions): AccessTokenVerifier {
  const { issuer, resource, keys, clock, cache, maxLifetimeS } = options;
  return async (token, witness) => {
    // A remembered token stands only while the key set it was checked against is fresh: past the
    // maximum age it is checked in full, which refetches the set (docs/protocol.md#key-set-refetch).
    const remembered = keys.isFresh() ? cache?.get(token, epochSeconds(clock)) : undefined;
    if (remembered) return remembered;
    const header = decodeTokenHeader(token);
    checkTokenType(header);
    const jwk = await keys.keyFor(requireKeyId(header));
    checkAlgorithm(header, jwk);
    const key = await keys.cryptoKeyFor(jwk).catch((err: unknown) => {
      throw bearerError('ERR_ALGORITHM', `key cannot be imported: ${describeThrown(err)}`);
    });
    const payload = await verifySignature(token, key);
    if (witness && typeof payload.sub === 'string' && payload.sub !== '') witness.signedSubject = payload.sub;
    checkIssuer(payload, issuer);
    checkAudience(payload, resource);
    const claims = checkRequiredClaims(payload);
    const nowS = epochSeconds(clock);
    checkExpiry(claims, nowS);
    checkIssuedAt(claims, nowS, maxLifetimeS);
    cache?.put(token, claims);
    return claims;
  };
}
