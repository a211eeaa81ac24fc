import { tokenError } from '../errors/token-endpoint-errors.js';
import { decodeSvid } from '../spiffe/svid/decode.js';
import type { SvidHeader } from '../spiffe/svid/header.js';
import { checkSvidHeader } from '../spiffe/svid/header.js';
import { svidRefusal } from './svid-refusal.js';
import type { TokenRequest } from './token-request.js';

/** A client assertion that is a well-formed JWT-SVID with an acceptable header; nothing verified yet. */
export interface UnverifiedSvid {
  readonly token: string;
  readonly header: SvidHeader;
  readonly claims: Record<string, unknown>;
}

/**
 * docs/protocol.md#client-authentication, check 5 ("SVID alg in the allowed list") → 401 invalid_client. The
 * assertion has to be there and be a bounded, well-formed JWS first (decodeSvid); then the header: the
 * algorithm allowlist, typ JWT or JOSE, no other parameters (no jku, x5u, jwk, crit), a kid.
 */
export function checkSvidAlgorithm(request: TokenRequest): UnverifiedSvid {
  const token = request.clientAssertion;
  if (token === undefined) throw tokenError('ERR_ASSERTION_MISSING', 'no client_assertion parameter');
  try {
    const decoded = decodeSvid(token);
    return { token, header: checkSvidHeader(decoded.header), claims: decoded.claims };
  } catch (err) {
    throw svidRefusal(err, {
      malformed: 'ERR_ASSERTION_MALFORMED',
      algorithm: 'ERR_SVID_ALGORITHM',
      typ: 'ERR_SVID_TYP',
      header: 'ERR_SVID_HEADER',
      kid: 'ERR_SVID_KID_MISSING',
    });
  }
}
