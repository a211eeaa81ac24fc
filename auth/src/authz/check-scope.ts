import { tokenError } from '../errors/token-endpoint-errors.js';
import { formatScope, parseScopeParameter } from '../oauth/scope.js';
import { quoted } from './audit-detail.js';

/**
 * docs/protocol.md#client-authentication, check 15 ("scope present, well formed, subset of grant") → 400
 * invalid_scope. There is no default scope (RFC 6749 §3.3 lets a server pick one;
 * docs/protocol.md#token-request does not). Returns the granted scope as the token carries it: sorted, single
 * spaces.
 */
export function checkScope(scope: string | undefined, allowed: ReadonlySet<string>): string {
  if (scope === undefined) throw tokenError('ERR_SCOPE_MISSING', 'no scope parameter');
  const requested = parseScopeParameter(scope);
  if (requested === null) throw tokenError('ERR_SCOPE_MALFORMED', `scope ${quoted(scope)}`);
  const excess = [...requested].filter((token) => !allowed.has(token));
  if (excess.length > 0) throw tokenError('ERR_SCOPE_NOT_GRANTED', `not granted: ${quoted(excess.join(' '))}`);
  return formatScope(requested);
}
