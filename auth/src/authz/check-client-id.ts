import { tokenError } from '../errors/token-endpoint-errors.js';
import type { SvidSubject } from '../spiffe/svid/subject.js';
import { quoted } from './audit-detail.js';
import type { TokenRequest } from './token-request.js';

/**
 * docs/protocol.md#client-authentication, check 12 ("client_id, if sent, equals sub") → 401 invalid_client
 * (RFC 7521 §4.2: the same client).
 */
export function checkClientId(request: TokenRequest, subject: SvidSubject): void {
  if (request.clientId !== undefined && request.clientId !== subject.id) {
    throw tokenError('ERR_CLIENT_ID_MISMATCH', `client_id ${quoted(request.clientId)} is not ${subject.id}`);
  }
}
