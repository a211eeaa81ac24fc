import { tokenError } from '../errors/token-endpoint-errors.js';
import { quoted } from './audit-detail.js';
import type { FormParameters, TokenRequest } from './token-request.js';

/**
 * docs/protocol.md#client-authentication, check 3 ("No repeated form parameter") → 400 invalid_request (RFC
 * 6749 §3.2: parameters MUST NOT be included more than once; so only one `resource` per request). Any name
 * counts, unknown ones too. Past this step every parameter has one value, and the typed request is built.
 */
export function rejectRepeatedParameters(form: FormParameters): TokenRequest {
  for (const [name, values] of form) {
    if (values.length > 1) throw tokenError('ERR_REPEATED_PARAMETER', `${quoted(name)} sent ${values.length} times`);
  }
  const single = (name: string): string | undefined => form.get(name)?.[0];
  return {
    clientAssertion: single('client_assertion'),
    clientId: single('client_id'),
    resource: single('resource'),
    scope: single('scope'),
  };
}
