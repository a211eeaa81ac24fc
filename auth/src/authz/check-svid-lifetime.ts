import { tokenError } from '../errors/token-endpoint-errors.js';
import type { SvidTimes } from './check-svid-claims.js';
import { SVID_LEEWAY_S } from './check-svid-claims.js';

/** docs/protocol.md#limits: default of --max-svid-lifetime; SPIRE's default JWT-SVID TTL, so equality is accepted. */
export const DEFAULT_MAX_SVID_LIFETIME_S = 300;

/**
 * docs/protocol.md#client-authentication, check 10 ("exp minus iat at most 300 s") → 401 invalid_client. An
 * iat in the future (beyond the leeway) is refused too: it would let an SVID stay usable for longer than the
 * bound from now.
 */
export function checkSvidLifetime(times: SvidTimes, nowS: number, maxLifetimeS: number): void {
  const lifetimeS = times.exp - times.iat;
  if (lifetimeS > maxLifetimeS) {
    throw tokenError('ERR_SVID_LIFETIME', `exp - iat is ${lifetimeS} s, more than ${maxLifetimeS} s`);
  }
  if (lifetimeS < 0) throw tokenError('ERR_SVID_LIFETIME', `exp ${times.exp} is before iat ${times.iat}`);
  if (times.iat > nowS + SVID_LEEWAY_S) {
    throw tokenError('ERR_SVID_NOT_YET_VALID', `iat ${times.iat} is after now ${nowS} + ${SVID_LEEWAY_S} s`);
  }
}
