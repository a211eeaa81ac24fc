import { JSON_RPC, type McpErrorSpec } from './mcp-error-spec.js';
import { errorFactory } from './protocol-error.js';

const invalidToken = (description: string): McpErrorSpec => ({
  protocolCode: 'invalid_token',
  status: 401,
  description,
  jsonRpcCode: JSON_RPC.serverError,
});

/**
 * Bearer authentication at the MCP server, in the order of docs/protocol.md#bearer-checks
 * (RFC 6750 §3.1 codes; RFC 9068 §4 validation).
 */
export const BEARER_ERRORS = {
  // RFC 6750 §3.1: a request without credentials gets a challenge but no error code.
  ERR_TOKEN_MISSING: {
    protocolCode: null,
    status: 401,
    description: 'Authentication required',
    jsonRpcCode: JSON_RPC.serverError,
  },
  ERR_TOKEN_MALFORMED: invalidToken('The access token is malformed'),
  ERR_TOKEN_TYPE: invalidToken('The access token type is not at+jwt'),
  ERR_KEY_UNKNOWN: invalidToken('The access token signing key is unknown'),
  ERR_JWKS_UNAVAILABLE: {
    ...invalidToken('The access token cannot be verified at this time'),
    auditCode: 'jwks_unavailable',
  },
  ERR_ALGORITHM: invalidToken('The access token algorithm is not accepted'),
  ERR_SIGNATURE: invalidToken('The access token signature is invalid'),
  ERR_ISSUER: invalidToken('The access token issuer is not trusted'),
  ERR_AUDIENCE: invalidToken('The access token is not meant for this resource'),
  ERR_CLAIMS: invalidToken('The access token lacks required claims'),
  ERR_EXPIRED: invalidToken('The access token has expired'),
  ERR_NOT_YET_VALID: invalidToken('The access token is not yet valid'),
  ERR_LIFETIME: invalidToken('The access token lifetime exceeds the allowed maximum'),
  ERR_INSUFFICIENT_SCOPE: {
    protocolCode: 'insufficient_scope',
    status: 403,
    description: 'The access token lacks the scope this call needs',
    jsonRpcCode: JSON_RPC.serverError,
  },
} as const satisfies Record<string, McpErrorSpec>;

export const bearerError = errorFactory(BEARER_ERRORS);
