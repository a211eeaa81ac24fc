import { SPIFFE_JWT_AUTH_METHOD } from '../oauth/spiffe-client-auth.js';
import { SVID_ALGORITHMS } from '../spiffe/svid/algorithms.js';

/** Where the token service serves its endpoints, on the issuer's origin (docs/protocol.md#authorization-server-metadata). */
export const TOKEN_PATH = '/token';
export const JWKS_PATH = '/jwks.json';

/**
 * RFC 8414 §2 metadata (docs/protocol.md#authorization-server-metadata): five fields, plus `response_types_supported: []`
 * because RFC 8414 requires the member and there is no authorization endpoint, and the SVID
 * algorithms accepted for client authentication. The documented contract wins over RFC 8414 §3.2's "omit
 * claims with zero elements" for the empty array.
 */
export function authorizationServerMetadata(issuer: string): Record<string, unknown> {
  return {
    issuer,
    token_endpoint: new URL(TOKEN_PATH, issuer).href,
    jwks_uri: new URL(JWKS_PATH, issuer).href,
    grant_types_supported: ['client_credentials'],
    token_endpoint_auth_methods_supported: [SPIFFE_JWT_AUTH_METHOD],
    token_endpoint_auth_signing_alg_values_supported: [...SVID_ALGORITHMS],
    response_types_supported: [],
  };
}
