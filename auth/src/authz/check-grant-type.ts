import { tokenError } from '../errors/token-endpoint-errors.js';
import type { FormParameters } from './token-request.js';
import { valuesOtherThan } from './token-request.js';

const CLIENT_CREDENTIALS = 'client_credentials';

/**
 * docs/protocol.md#client-authentication, check 1 ("grant_type is client_credentials") → 400
 * unsupported_grant_type. It runs before the repeated-parameter row, so it judges every value sent: one
 * unsupported value fails here, while `client_credentials` sent twice passes here and is refused as repeated.
 */
export function checkGrantType(form: FormParameters): void {
  const problem = valuesOtherThan(form, 'grant_type', CLIENT_CREDENTIALS);
  if (problem !== null) throw tokenError('ERR_GRANT_TYPE', problem);
}
