import { tokenError } from '../errors/token-endpoint-errors.js';
import { normalizeResource } from '../oauth/resource.js';
import type { ClientGrant } from '../policy/policy.js';
import { quoted } from './audit-detail.js';

export interface AllowedResource {
  /** The token audience: the requested resource, its trailing slash removed. */
  readonly audience: string;
  readonly scopes: ReadonlySet<string>;
}

/**
 * docs/protocol.md#client-authentication, check 14 ("Resource allowed for that SPIFFE ID") → 400
 * invalid_target (exact, after one trailing slash is removed).
 */
export function checkResourceAllowed(grant: ClientGrant, resource: string): AllowedResource {
  const scopes = grant.scopesFor(resource);
  if (scopes === undefined) {
    throw tokenError('ERR_RESOURCE_NOT_ALLOWED', `resource ${quoted(resource)} is not granted to ${grant.spiffeId}`);
  }
  return { audience: normalizeResource(resource), scopes };
}
