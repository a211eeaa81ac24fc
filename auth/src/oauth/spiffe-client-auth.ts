/**
 * Names of SPIFFE client authentication at the token endpoint, shared by the
 * token service (which checks them) and the clients (which send them).
 */

/** draft-ietf-oauth-spiffe-client-auth §3.1: the JWT-SVID client assertion type. */
export const JWT_SPIFFE_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-spiffe';

/** draft-ietf-oauth-spiffe-client-auth §4: the name of the JWT-SVID client authentication method. */
export const SPIFFE_JWT_AUTH_METHOD = 'spiffe_jwt';
