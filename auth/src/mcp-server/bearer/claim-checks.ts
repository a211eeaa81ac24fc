import { bearerError } from '../../errors/bearer-errors.js';
import type { AccessTokenClaims } from '../../oauth/access-token.js';
import { parseScopeParameter } from '../../oauth/scope.js';
import { clip } from '../../shared/clip.js';

type Payload = Readonly<Record<string, unknown>>;

/** RFC 9068 §4: iss must exactly equal the configured issuer. */
export function checkIssuer(payload: Payload, issuer: string): void {
  if (payload.iss === issuer) return;
  throw bearerError('ERR_ISSUER', `iss is ${describe(payload.iss)}, expected ${issuer}`);
}

/**
 * RFC 8707 / MCP: the token must be minted for this server. aud is our
 * canonical resource URI, as a string or a one-element array; a token naming
 * several audiences would be usable elsewhere too and is refused.
 */
export function checkAudience(payload: Payload, resource: string): void {
  const aud = payload.aud;
  if (aud === resource) return;
  if (Array.isArray(aud) && aud.length === 1 && aud[0] === resource) return;
  throw bearerError('ERR_AUDIENCE', `aud is ${describe(aud)}, expected ${resource}`);
}

/** iss, sub, aud, exp, iat and scope present and well typed; optional claims typed when present. */
export function checkRequiredClaims(payload: Payload): AccessTokenClaims {
  const { iss, sub, aud, exp, iat, scope, client_id: clientId, jti, nbf } = payload;
  if (typeof iss !== 'string') throw missing('iss');
  if (typeof sub !== 'string' || sub === '') throw missing('sub');
  const audience = Array.isArray(aud) ? aud[0] : aud;
  if (typeof audience !== 'string') throw missing('aud');
  if (!isNumericDate(exp)) throw missing('exp');
  if (!isNumericDate(iat)) throw missing('iat');
  if (typeof scope !== 'string') throw missing('scope');
  if (clientId !== undefined && typeof clientId !== 'string') throw malformed('client_id');
  if (jti !== undefined && typeof jti !== 'string') throw malformed('jti');
  if (nbf !== undefined && !isNumericDate(nbf)) throw malformed('nbf');
  const scopes = parseScopeParameter(scope);
  if (scopes === null) throw bearerError('ERR_CLAIMS', `scope ${describe(scope)} is not a scope list`);
  return { iss, sub, aud: audience, exp, iat, scopes, clientId, jti, nbf };
}

/** exp not past (no leeway at the resource server: tokens live 300 s). RFC 7519 §4.1.5: nbf, when present, reached. */
export function checkExpiry(claims: AccessTokenClaims, nowS: number): void {
  if (nowS >= claims.exp) throw bearerError('ERR_EXPIRED', `exp ${claims.exp} is not after now ${nowS}`);
  if (claims.nbf !== undefined && nowS < claims.nbf) {
    throw bearerError('ERR_NOT_YET_VALID', `nbf ${claims.nbf} is after now ${nowS}`);
  }
}

/** docs/protocol.md#limits: how far ahead of our clock a token's iat may be (the token service's leeway). */
const ISSUED_AT_LEEWAY_S = 30;
/** docs/protocol.md#limits: the default of --max-token-lifetime; our tokens live 300 s. */
export const DEFAULT_MAX_TOKEN_LIFETIME_S = 900;

/**
 * Defence in depth beyond RFC 9068 §4 (docs/protocol.md#bearer-checks): a token issued in the future
 * (beyond the leeway), expiring before it was issued, or living longer than `maxLifetimeS` is refused, so that a mis-set issuer clock or
 * a key that signs long-lived tokens cannot mint tokens that outlive their purpose here.
 */
export function checkIssuedAt(claims: AccessTokenClaims, nowS: number, maxLifetimeS: number): void {
  if (claims.iat > nowS + ISSUED_AT_LEEWAY_S) {
    throw bearerError('ERR_NOT_YET_VALID', `iat ${claims.iat} is after now ${nowS} + ${ISSUED_AT_LEEWAY_S} s`);
  }
  const lifetimeS = claims.exp - claims.iat;
  if (lifetimeS <= 0) throw bearerError('ERR_LIFETIME', `exp ${claims.exp} is not after iat ${claims.iat}`);
  if (lifetimeS > maxLifetimeS) {
    throw bearerError('ERR_LIFETIME', `exp - iat is ${lifetimeS} s, more than ${maxLifetimeS} s`);
  }
}

function isNumericDate(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function missing(claim: string) {
  return bearerError('ERR_CLAIMS', `${claim} is absent or not well typed`);
}

function malformed(claim: string) {
  return bearerError('ERR_CLAIMS', `${claim} is not well typed`);
}

function describe(value: unknown): string {
  if (value === undefined) return 'absent';
  return clip(JSON.stringify(value) ?? String(value));
}
