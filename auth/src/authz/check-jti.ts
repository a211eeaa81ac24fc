import { tokenError } from '../errors/token-endpoint-errors.js';
import { quoted } from './audit-detail.js';

/** docs/protocol.md#limits: jti length 1 to 256 characters. */
const MAX_JTI_CHARS = 256;

/**
 * docs/protocol.md#client-authentication, check 11 ("jti, if present, is a string of 1 to 256 characters") →
 * 401 invalid_client.
 */
export function checkJti(claims: Record<string, unknown>): string | undefined {
  const { jti } = claims;
  if (jti === undefined) return undefined;
  if (typeof jti !== 'string') throw tokenError('ERR_SVID_JTI', `jti is ${quoted(jti)}, not a string`);
  // Characters are code points; only a string longer than the bound in UTF-16 units can be over it.
  const chars = jti.length > MAX_JTI_CHARS ? [...jti].length : jti.length;
  if (chars < 1 || chars > MAX_JTI_CHARS) {
    throw tokenError('ERR_SVID_JTI', `jti has ${chars} characters (allowed 1 to ${MAX_JTI_CHARS})`);
  }
  return jti;
}
