import { tokenError } from '../errors/token-endpoint-errors.js';
import { resourceForm } from '../oauth/identifier.js';
import type { ClientGrant } from '../policy/policy.js';
import { quoted } from './audit-detail.js';

export interface AllowedResource {
  /** The token audience: the requested resource in the resource form (RFC 9068 §2.2, docs/protocol.md#identifiers). */
  readonly audience: string;
  readonly scopes: ReadonlySet<string>;
}

/**
 * docs/protocol.md#client-authentication, check 14 ("Resource allowed for that SPIFFE ID") → 400
 * invalid_target: the grant names the resource in any equivalent spelling (docs/protocol.md#identifiers);
 * a resource with no resource form (RFC 8707 §2: "malformed") is granted to nobody.
 */
export function checkResourceAllowed(grant: ClientGrant, resource: string): AllowedResource {
  const form = resourceForm(resource);
  if (!form.ok) throw tokenError('ERR_RESOURCE_NOT_ALLOWED', `resource ${quoted(resource)} ${form.problem}`);
  const scopes = grant.scopesFor(form.value);
  if (scopes === undefined) {
    throw tokenError('ERR_RESOURCE_NOT_ALLOWED', `resource ${quoted(resource)} is not granted to ${grant.spiffeId}`);
  }
  return { audience: form.value, scopes };
}
