import { bearerError } from '../../errors/bearer-errors.js';
import { describeThrown } from '../../errors/protocol-error.js';
import { type Clock, epochSeconds } from '../../shared/clock.js';
import type { KeySetCache } from '../keys/key-set-cache.js';
import {
  type AccessTokenClaims,
  checkAudience,
  checkExpiry,
  checkIssuer,
  checkRequiredClaims,
} from './claim-checks.js';
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
  /** Omit to verify every token in full. */
  readonly cache?: VerifiedTokenCache;
}

export type AccessTokenVerifier = (token: string) => Promise<AccessTokenClaims>;

/**
 * Bearer checks in the order of the spec's table; each step throws a typed
 * ProtocolError from the bearer registry. The scope check is per tool and runs
 * after this (see checkToolScope).
 */
export function createAccessTokenVerifier(options: AccessTokenVerifierOptions): AccessTokenVerifier {
  const { issuer, resource, keys, clock, cache } = options;
  return async (token) => {
    const remembered = cache?.get(token, epochSeconds(clock));
    if (remembered) return remembered;
    const header = decodeTokenHeader(token);
    checkTokenType(header);
    const jwk = await keys.keyFor(requireKeyId(header));
    checkAlgorithm(header, jwk);
    const key = await keys.cryptoKeyFor(jwk).catch((err: unknown) => {
      throw bearerError('ERR_ALGORITHM', `key cannot be imported: ${describeThrown(err)}`);
    });
    const payload = await verifySignature(token, key);
    checkIssuer(payload, issuer);
    checkAudience(payload, resource);
    const claims = checkRequiredClaims(payload);
    checkExpiry(claims, epochSeconds(clock));
    cache?.put(token, claims);
    return claims;
  };
}

/** Errors raised after the signature verified: the token's sub is authentic then. */
const AFTER_SIGNATURE = new Set(['ERR_ISSUER', 'ERR_AUDIENCE', 'ERR_CLAIMS', 'ERR_EXPIRED', 'ERR_NOT_YET_VALID']);

/** Whether a refusal with this code was decided after the signature check. */
export function decidedAfterSignature(code: string): boolean {
  return AFTER_SIGNATURE.has(code);
}
