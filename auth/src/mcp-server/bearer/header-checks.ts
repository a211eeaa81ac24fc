import { bearerError } from '../../errors/bearer-errors.js';
import { ACCESS_TOKEN_ALG, ACCESS_TOKEN_TYP } from '../../oauth/access-token.js';
import { clip } from '../../shared/clip.js';
import type { PublicJwk } from '../keys/key-set-document.js';
import type { TokenHeader } from './token-header.js';

/** RFC 9068 §4: typ must be at+jwt (media type names compare case-insensitively, RFC 7515 §4.1.9). */
export function checkTokenType(header: TokenHeader): void {
  const typ = header.typ?.toLowerCase();
  if (typ === ACCESS_TOKEN_TYP || typ === `application/${ACCESS_TOKEN_TYP}`) return;
  throw bearerError('ERR_TOKEN_TYPE', header.typ === undefined ? 'typ is absent' : `typ is ${clip(header.typ)}`);
}

/** The key is selected by kid alone, from the configured key set; a token without kid cannot choose one. */
export function requireKeyId(header: TokenHeader): string {
  if (header.kid === undefined || header.kid === '') throw bearerError('ERR_KEY_UNKNOWN', 'kid is absent');
  return header.kid;
}

/** No algorithm confusion: the header says ES256 and the selected key is a P-256 signing key allowed for it. */
export function checkAlgorithm(header: TokenHeader, jwk: PublicJwk): void {
  if (header.alg !== ACCESS_TOKEN_ALG) {
    throw bearerError('ERR_ALGORITHM', `alg is ${header.alg === undefined ? 'absent' : clip(header.alg)}`);
  }
  const usable =
    jwk.kty === 'EC' &&
    jwk.crv === 'P-256' &&
    (jwk.alg === undefined || jwk.alg === ACCESS_TOKEN_ALG) &&
    (jwk.use === undefined || jwk.use === 'sig');
  if (!usable) throw bearerError('ERR_ALGORITHM', `key ${clip(header.kid ?? '')} is not an ES256 signing key`);
}
