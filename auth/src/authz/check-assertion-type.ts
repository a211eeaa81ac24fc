import { tokenError } from '../errors/token-endpoint-errors.js';
import { JWT_SPIFFE_ASSERTION_TYPE } from '../oauth/spiffe-client-auth.js';
import type { FormParameters } from './token-request.js';
import { valuesOtherThan } from './token-request.js';

/**
 * docs/protocol.md#client-authentication, check 2 ("client_assertion_type is the jwt-spiffe URN") → 401
 * invalid_client (every value judged, as for grant_type).
 */
export function checkAssertionType(form: FormParameters): void {
  const problem = valuesOtherThan(form, 'client_assertion_type', JWT_SPIFFE_ASSERTION_TYPE);
  if (problem !== null) throw tokenError('ERR_ASSERTION_TYPE', problem);
}
