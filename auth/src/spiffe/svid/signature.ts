import { errorMessage } from '@notegate/kit';
import { compactVerify } from 'jose';
import { clip } from '../../shared/clip.js';
import type { KeysResult } from '../bundles/jwt-bundle-source.js';
import type { SvidHeader } from './header.js';
import { SvidError } from './svid-error.js';

/**
 * Verifies the signature with the key the header's kid selects from the subject's trust-domain
 * bundle (Workload API §6.3: never another trust domain's). The key was imported per algorithm when
 * the bundle arrived, so an alg the key type cannot do (RS256 on an EC key, ES384 on P-256) has no key.
 */
export async function verifySvidSignature(token: string, header: SvidHeader, keysResult: KeysResult): Promise<void> {
  if (keysResult.status === 'unavailable') throw new SvidError('bundle_unavailable', keysResult.reason);
  if (keysResult.status === 'untrusted') throw new SvidError('untrusted', keysResult.reason);
  const bundleKey = keysResult.keys.get(header.kid);
  // Before the signature verifies, the kid is the client's: clipped wherever it is quoted.
  const kid = clip(header.kid);
  if (!bundleKey) {
    throw new SvidError('kid', `kid ${kid} is not in the bundle of ${keysResult.trustDomain}`);
  }
  const key = bundleKey.keys.get(header.alg);
  if (!key) {
    const what = bundleKey.crv ? `${bundleKey.kty} ${bundleKey.crv}` : bundleKey.kty;
    throw new SvidError('algorithm', `alg ${header.alg} does not match key ${kid} (${what})`);
  }
  try {
    await compactVerify(token, key, { algorithms: [header.alg] });
  } catch (err) {
    throw new SvidError('signature', `signature does not verify with key ${kid}: ${errorMessage(err)}`);
  }
}
