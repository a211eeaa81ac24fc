import { SvidError } from './svid-error.js';

/**
 * The JWT-SVID standard's own claim rules (JWT-SVID §3.2, §3.3), for simple validators such as the
 * identity provider's ValidateJWTSVID. The token service applies the stricter rules of docs/protocol.md#client-authentication instead
 * (aud exactly the issuer, lifetime bound, jti, replay) as its own named steps after the signature.
 */

/** JWT-SVID §3.3: exp MUST be present and not past, with a small leeway. */
export function checkSvidExpiry(claims: Record<string, unknown>, nowS: number, leewayS: number): number {
  const { exp } = claims;
  if (typeof exp !== 'number' || !Number.isFinite(exp)) throw new SvidError('claims', 'exp is missing or not a number');
  if (exp + leewayS <= nowS) throw new SvidError('expired', `expired at ${exp} (now ${nowS}, leeway ${leewayS} s)`);
  return exp;
}

/** JWT-SVID §3.2: aud MUST be present and the validator's own audience MUST be one of its values. */
export function checkSvidAudienceIncludes(claims: Record<string, unknown>, audience: string): string[] {
  const { aud } = claims;
  const values = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
  if (values.length === 0 || !values.every((value): value is string => typeof value === 'string')) {
    throw new SvidError('claims', 'aud is missing or not a string or array of strings');
  }
  if (!values.includes(audience)) throw new SvidError('audience', `aud does not include ${audience}`);
  return values;
}
