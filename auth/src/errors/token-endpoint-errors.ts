import type { ProtocolErrorSpec } from './protocol-error.js';
import { errorFactory, isErrorOf, type ProtocolError } from './protocol-error.js';

const invalidClient = (description: string) => ({ protocolCode: 'invalid_client', status: 401, description }) as const;
const invalidRequest = (description: string) =>
  ({ protocolCode: 'invalid_request', status: 400, description }) as const;
/** Every 503 of the token service says the same: what is unavailable goes to the audit detail. */
export const TEMPORARILY_UNAVAILABLE = {
  protocolCode: 'temporarily_unavailable',
  status: 503,
  description: 'The token service is temporarily unavailable; retry later.',
} as const;

/**
 * Every refusal of the token endpoint (`notegate authz`), in the order of the table in
 * docs/protocol.md#client-authentication. Descriptions are fixed (RFC 6749 §5.2 charset) and
 * never echo input; what was wrong goes to the audit detail only.
 */
export const TOKEN_ENDPOINT_ERRORS = {
  // The request as a whole, before the table can be evaluated.
  ERR_CONTENT_TYPE: invalidRequest('The token request must be sent as application/x-www-form-urlencoded.'),
  ERR_BODY_TOO_LARGE: {
    protocolCode: 'invalid_request',
    status: 413,
    description: 'The token request body is larger than 64 KiB.',
  },
  ERR_FORM_MALFORMED: invalidRequest('The token request body is not valid form encoding.'),

  // grant_type is client_credentials
  ERR_GRANT_TYPE: {
    protocolCode: 'unsupported_grant_type',
    status: 400,
    description: 'Only the client_credentials grant type is supported.',
  },
  // client_assertion_type is the jwt-spiffe URN
  ERR_ASSERTION_TYPE: invalidClient(
    'client_assertion_type must be urn:ietf:params:oauth:client-assertion-type:jwt-spiffe.',
  ),
  // No repeated form parameter
  ERR_REPEATED_PARAMETER: invalidRequest('A request parameter is repeated.'),
  // resource present
  ERR_RESOURCE_MISSING: {
    protocolCode: 'invalid_target',
    status: 400,
    description: 'The resource parameter is required.',
  },
  // SVID alg in the allowed list (the assertion must first be there and be a JWT)
  ERR_ASSERTION_MISSING: invalidClient('The client_assertion parameter is required.'),
  ERR_ASSERTION_MALFORMED: invalidClient('The client assertion is not a well-formed JWT.'),
  ERR_SVID_ALGORITHM: invalidClient('The client assertion algorithm is not allowed.'),
  ERR_SVID_TYP: invalidClient('The client assertion typ header must be JWT or JOSE.'),
  ERR_SVID_HEADER: invalidClient('The client assertion carries a header parameter that is not allowed.'),
  ERR_SVID_KID_MISSING: invalidClient('The client assertion header has no kid.'),
  // sub is a valid SPIFFE ID in the policy trust domain
  ERR_SVID_SUBJECT: invalidClient('The client assertion subject is not a valid SPIFFE ID.'),
  ERR_SVID_TRUST_DOMAIN: invalidClient('The client assertion subject is not in the trusted trust domain.'),
  // Signature verifies against the identity provider JWT bundle, key chosen by kid
  ERR_SVID_UNTRUSTED: invalidClient('No key is trusted for the client assertion trust domain.'),
  ERR_SVID_KEY_UNKNOWN: invalidClient('The client assertion kid is not in the trust bundle.'),
  ERR_SVID_KEY_ALGORITHM: invalidClient('The client assertion algorithm does not match its key.'),
  ERR_SVID_SIGNATURE: invalidClient('The client assertion signature is invalid.'),
  // sub, aud, exp, iat present (plus jti in reject mode); exp not past (30 s leeway)
  ERR_SVID_CLAIM_MISSING: invalidClient('The client assertion lacks a required claim.'),
  ERR_SVID_CLAIM_TYPE: invalidClient('A client assertion time claim is not a number.'),
  ERR_SVID_EXPIRED: invalidClient('The client assertion has expired.'),
  ERR_SVID_NOT_YET_VALID: invalidClient('The client assertion is not valid yet.'),
  // aud is the issuer and nothing else
  ERR_SVID_AUDIENCE: invalidClient('The client assertion audience must be exactly this issuer.'),
  // exp minus iat at most the maximum SVID lifetime
  ERR_SVID_LIFETIME: invalidClient('The client assertion lifetime exceeds the allowed maximum.'),
  // jti, if present, is a string of 1 to 256 characters
  ERR_SVID_JTI: invalidClient('The client assertion jti must be a string of 1 to 256 characters.'),
  // client_id, if sent, equals sub
  ERR_CLIENT_ID_MISMATCH: invalidClient('client_id does not match the client assertion subject.'),
  // SPIFFE ID present in policy
  ERR_CLIENT_NOT_IN_POLICY: {
    protocolCode: 'unauthorized_client',
    status: 400,
    description: 'This client is not authorized to obtain access tokens.',
  },
  // Resource allowed for that SPIFFE ID
  ERR_RESOURCE_NOT_ALLOWED: {
    protocolCode: 'invalid_target',
    status: 400,
    description: 'The requested resource is not allowed for this client.',
  },
  // scope present, well formed, subset of grant
  ERR_SCOPE_MISSING: {
    protocolCode: 'invalid_scope',
    status: 400,
    description: 'The scope parameter is required.',
  },
  ERR_SCOPE_MALFORMED: {
    protocolCode: 'invalid_scope',
    status: 400,
    description: 'The scope parameter must be scope tokens separated by single spaces.',
  },
  ERR_SCOPE_NOT_GRANTED: {
    protocolCode: 'invalid_scope',
    status: 400,
    description: 'The requested scope exceeds what this client may obtain for the resource.',
  },
  // reject mode: (sub, jti) not seen before
  ERR_SVID_REPLAYED: invalidClient('The client assertion has already been used.'),
  // reject mode: the SPIFFE ID's share of the replay store has room (docs/protocol.md#replay-store)
  ERR_REPLAY_SHARE_FULL: TEMPORARILY_UNAVAILABLE,
  // reject mode: replay store has room
  ERR_REPLAY_STORE_FULL: TEMPORARILY_UNAVAILABLE,
  // reject mode: the replay store answered in time (docs/protocol.md#replay-store)
  ERR_REPLAY_STORE_UNAVAILABLE: TEMPORARILY_UNAVAILABLE,
  // Trust bundle fetch fails
  ERR_BUNDLE_UNAVAILABLE: TEMPORARILY_UNAVAILABLE,

  // Anything unexpected: never details to the client.
  ERR_SERVER: {
    protocolCode: 'server_error',
    status: 500,
    description: 'The token service hit an unexpected error.',
  },
} as const satisfies Record<string, ProtocolErrorSpec>;

export type TokenEndpointErrorCode = keyof typeof TOKEN_ENDPOINT_ERRORS;
export type TokenEndpointError = ProtocolError<TokenEndpointErrorCode>;

/** `throw tokenError('ERR_SVID_EXPIRED', 'expired at …')`. */
export const tokenError = errorFactory(TOKEN_ENDPOINT_ERRORS);

export function isTokenEndpointError(err: unknown): err is TokenEndpointError {
  return isErrorOf(TOKEN_ENDPOINT_ERRORS, err);
}
