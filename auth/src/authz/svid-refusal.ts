import type { TokenEndpointError, TokenEndpointErrorCode } from '../errors/token-endpoint-errors.js';
import { tokenError } from '../errors/token-endpoint-errors.js';
import type { SvidRule } from '../spiffe/svid/svid-error.js';
import { SvidError } from '../spiffe/svid/svid-error.js';

/**
 * Turns a refusal of the SPIFFE layer into this step's token-endpoint error. A rule the step does
 * not expect, or any other exception, is rethrown unchanged: it is a bug, and becomes a 500.
 */
export function svidRefusal(
  err: unknown,
  codes: Readonly<Partial<Record<SvidRule, TokenEndpointErrorCode>>>,
): TokenEndpointError {
  if (!(err instanceof SvidError)) throw err;
  const code = codes[err.rule];
  if (code === undefined) throw err;
  return tokenError(code, err.message);
}
