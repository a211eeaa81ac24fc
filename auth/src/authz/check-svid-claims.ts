import { tokenError } from '../errors/token-endpoint-errors.js';
import { checkSvidExpiry } from '../spiffe/svid/claims.js';
import { DEFAULT_SVID_LEEWAY_S } from '../spiffe/svid/verify-jwt-svid.js';
import { CACHING_SOURCE_ADVICE, quoted } from './audit-detail.js';
import { svidRefusal } from './svid-refusal.js';

/** docs/protocol.md#limits: clock leeway on exp. */
export const SVID_LEEWAY_S = DEFAULT_SVID_LEEWAY_S;

export interface SvidTimes {
  readonly exp: number;
  readonly iat: number;
}

const REQUIRED_CLAIMS = ['sub', 'aud', 'exp', 'iat'] as const;
const REQUIRED_CLAIMS_WITH_JTI = [...REQUIRED_CLAIMS, 'jti'] as const;

/**
 * docs/protocol.md#client-authentication, check 8 ("sub, aud, exp, iat present (plus jti in reject mode); exp
 * not past (30 s leeway)") → 401 invalid_client. exp and iat must be numbers (RFC 7519 NumericDate). An nbf,
 * which JWT-SVIDs do not use, is still honoured when present (RFC 7519 §4.1.5), with the same leeway.
 */
export function checkSvidClaims(
  claims: Record<string, unknown>,
  options: { readonly nowS: number; readonly jtiRequired: boolean },
): SvidTimes {
  for (const name of options.jtiRequired ? REQUIRED_CLAIMS_WITH_JTI : REQUIRED_CLAIMS) {
    if (claims[name] === undefined) {
      // SPIRE mints no jti unless the entry asks for one, and then caches the SVID anyway.
      const advice = name === 'jti' ? ` (required in reject mode). ${CACHING_SOURCE_ADVICE}` : '';
      throw tokenError('ERR_SVID_CLAIM_MISSING', `${name} is missing${advice}`);
    }
  }
  const iat = numericDate(claims, 'iat');
  let exp: number;
  try {
    exp = checkSvidExpiry(claims, options.nowS, SVID_LEEWAY_S);
  } catch (err) {
    throw svidRefusal(err, { claims: 'ERR_SVID_CLAIM_TYPE', expired: 'ERR_SVID_EXPIRED' });
  }
  if (claims.nbf !== undefined && numericDate(claims, 'nbf') > options.nowS + SVID_LEEWAY_S) {
    throw tokenError('ERR_SVID_NOT_YET_VALID', `nbf ${claims.nbf} is after now ${options.nowS} + ${SVID_LEEWAY_S} s`);
  }
  return { exp, iat };
}

function numericDate(claims: Record<string, unknown>, name: string): number {
  const value = claims[name];
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw tokenError('ERR_SVID_CLAIM_TYPE', `${name} is ${quoted(value)}, not a number`);
  }
  return value;
}
