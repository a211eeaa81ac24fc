import { tokenError } from '../errors/token-endpoint-errors.js';
import type { ClientGrant, Policy } from '../policy/policy.js';
import type { SvidSubject } from '../spiffe/svid/subject.js';

/** docs/protocol.md#client-authentication, check 13 ("SPIFFE ID present in policy") → 400 unauthorized_client. */
export function checkPolicy(policy: Policy, subject: SvidSubject): ClientGrant {
  const grant = policy.grantFor(subject.id);
  if (grant === undefined) throw tokenError('ERR_CLIENT_NOT_IN_POLICY', `${subject.id} has no grant in the policy`);
  return grant;
}
