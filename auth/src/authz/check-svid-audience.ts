import { tokenError } from '../errors/token-endpoint-errors.js';
import { quoted } from './audit-detail.js';

/**
 * docs/protocol.md#client-authentication, check 9 ("aud is the issuer and nothing else") → 401
 * invalid_client. draft-ietf-oauth-spiffe-client-auth §3.1 (via rfc7523bis): the issuer identifier is the
 * sole audience, compared exactly; a one-element array counts as the same thing (SPIRE always sends an
 * array).
 */
export function checkSvidAudience(claims: Record<string, unknown>, issuer: string): void {
  const { aud } = claims;
  const sole = typeof aud === 'string' ? aud : Array.isArray(aud) && aud.length === 1 ? aud[0] : undefined;
  if (sole !== issuer) throw tokenError('ERR_SVID_AUDIENCE', `aud ${quoted(aud)} is not exactly the issuer`);
}
