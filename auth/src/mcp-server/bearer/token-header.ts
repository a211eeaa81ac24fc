import { decodeJwt, decodeProtectedHeader } from 'jose';
import { bearerError } from '../../errors/bearer-errors.js';

/** The JOSE header members the checks read, typed. Other members (jku, x5u, jwk, x5c) are never used. */
export interface TokenHeader {
  readonly alg: string | undefined;
  readonly typ: string | undefined;
  readonly kid: string | undefined;
}

/** Decodes the protected header of a compact JWS without trusting it. */
export function decodeTokenHeader(token: string): TokenHeader {
  if (token.split('.').length !== 3) throw bearerError('ERR_TOKEN_MALFORMED', 'not a compact JWS (three parts)');
  let header: Record<string, unknown>;
  try {
    header = decodeProtectedHeader(token);
  } catch {
    throw bearerError('ERR_TOKEN_MALFORMED', 'protected header is not base64url JSON');
  }
  return {
    alg: optionalString(header.alg, 'alg'),
    typ: optionalString(header.typ, 'typ'),
    kid: optionalString(header.kid, 'kid'),
  };
}

function optionalString(value: unknown, name: string): string | undefined {
  if (value === undefined || typeof value === 'string') return value;
  throw bearerError('ERR_TOKEN_MALFORMED', `header ${name} is not a string`);
}

/** The `sub` of a token whose signature has not (yet) been checked, for audit lines only. */
export function unverifiedSubject(token: string): string | undefined {
  try {
    const { sub } = decodeJwt(token);
    return typeof sub === 'string' && sub.length > 0 ? sub : undefined;
  } catch {
    return undefined;
  }
}
