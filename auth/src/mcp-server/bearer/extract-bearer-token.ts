import { bearerError } from '../../errors/bearer-errors.js';

// RFC 6750 §2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * The bearer token of an `Authorization` header (RFC 6750 §2.1; the scheme is
 * case-insensitive). Only the header method is accepted (MCP forbids the query
 * string). Another scheme counts as no bearer token at all.
 */
export function extractBearerToken(authorization: string | undefined): string {
  if (authorization === undefined || authorization.trim() === '') {
    throw bearerError('ERR_TOKEN_MISSING', 'no Authorization header');
  }
  const [scheme, token = '', ...extra] = authorization.trim().split(/ +/);
  if (scheme?.toLowerCase() !== 'bearer') throw bearerError('ERR_TOKEN_MISSING', 'Authorization scheme is not Bearer');
  if (token === '') throw bearerError('ERR_TOKEN_MISSING', 'Bearer without credentials');
  if (extra.length > 0 || !B64TOKEN.test(token)) {
    throw bearerError('ERR_TOKEN_MALFORMED', 'bearer credentials are not a b64token');
  }
  return token;
}
