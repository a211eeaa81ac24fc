import { tokenError } from '../errors/token-endpoint-errors.js';
import type { TokenRequest } from './token-request.js';

/**
 * docs/protocol.md#client-authentication, check 4 ("resource present") → 400 invalid_target (RFC 8707 §2:
 * "missing"). No default resource.
 */
export function checkResourcePresent(request: TokenRequest): string {
  if (request.resource === undefined) throw tokenError('ERR_RESOURCE_MISSING', 'no resource parameter');
  return request.resource;
}
