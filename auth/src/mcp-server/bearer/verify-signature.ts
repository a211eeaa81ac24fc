import { errorMessage, isRecord } from '@notegate/kit';
import { type CryptoKey, compactVerify, errors } from 'jose';
import { bearerError } from '../../errors/bearer-errors.js';
import { ACCESS_TOKEN_ALG } from '../../oauth/access-token.js';

const decoder = new TextDecoder();

/** Verifies the ES256 signature and returns the payload as a JSON object (not yet trusted for its claims). */
export async function verifySignature(token: string, key: CryptoKey): Promise<Record<string, unknown>> {
  let payload: Uint8Array;
  try {
    ({ payload } = await compactVerify(token, key, { algorithms: [ACCESS_TOKEN_ALG] }));
  } catch (err) {
    if (err instanceof errors.JWSSignatureVerificationFailed) throw bearerError('ERR_SIGNATURE', 'signature mismatch');
    if (err instanceof errors.JOSEAlgNotAllowed) throw bearerError('ERR_ALGORITHM', err.message);
    throw bearerError('ERR_TOKEN_MALFORMED', errorMessage(err));
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(decoder.decode(payload));
  } catch {
    throw bearerError('ERR_TOKEN_MALFORMED', 'payload is not JSON');
  }
  if (!isRecord(parsed)) throw bearerError('ERR_TOKEN_MALFORMED', 'payload is not a JSON object');
  return parsed;
}
