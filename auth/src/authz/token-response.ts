import type { OutgoingHttpHeaders } from 'node:http';
import type { ProtocolError } from '../errors/protocol-error.js';

/** What the HTTP layer writes for a token request. */
export interface TokenResponse {
  readonly status: number;
  readonly headers: OutgoingHttpHeaders;
  readonly body: Readonly<Record<string, unknown>>;
}

/** RFC 6749 §5.1/§5.2 and docs/protocol.md#token-response: every token response, success or error, is not to be cached. */
const NO_STORE: OutgoingHttpHeaders = Object.freeze({ 'Cache-Control': 'no-store', Pragma: 'no-cache' });

/** docs/protocol.md#token-response: `{access_token, token_type: "Bearer", expires_in: 300, scope}`. */
export function tokenSuccess(accessToken: string, scope: string, lifetimeS: number): TokenResponse {
  return {
    status: 200,
    headers: NO_STORE,
    body: { access_token: accessToken, token_type: 'Bearer', expires_in: lifetimeS, scope },
  };
}

/**
 * docs/protocol.md#token-response: `{error, error_description}` with the fixed description. A 401 names the
 * authentication scheme in WWW-Authenticate (`challenge`, see `clientAuthChallenge`).
 */
export function tokenFailure(error: ProtocolError, challenge: string): TokenResponse {
  const headers = error.status === 401 ? { ...NO_STORE, 'WWW-Authenticate': challenge } : NO_STORE;
  return { status: error.status, headers, body: { error: error.protocolCode, error_description: error.description } };
}

/**
 * RFC 6749 §5.2 asks for WWW-Authenticate with the scheme the client used; no HTTP authentication
 * scheme is registered for assertion-based client authentication (the client authenticated in the
 * body). We name the method the metadata advertises, `spiffe_jwt` (a valid RFC 9110 §11.1 token),
 * so the challenge points at the one method this server accepts; the realm is the issuer.
 */
export function clientAuthChallenge(authMethod: string, issuer: string): string {
  return `${authMethod} realm="${issuer.replace(/["\\]/g, '\\$&')}"`;
}
