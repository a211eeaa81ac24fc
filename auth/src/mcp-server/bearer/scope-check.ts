import { bearerError } from '../../errors/bearer-errors.js';
import type { AccessTokenClaims } from '../../oauth/access-token.js';

/** Per-tool least privilege: the granted scopes must include the tool's scope (403 insufficient_scope). */
export function checkToolScope(claims: AccessTokenClaims, requiredScope: string): void {
  if (!claims.scopes.has(requiredScope)) throw bearerError('ERR_INSUFFICIENT_SCOPE', `needs ${requiredScope}`);
}
