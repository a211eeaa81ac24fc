import type { JwtBundleSource } from '../spiffe/bundles/jwt-bundle-source.js';
import { verifySvidSignature } from '../spiffe/svid/signature.js';
import type { SvidSubject } from '../spiffe/svid/subject.js';
import type { UnverifiedSvid } from './check-svid-algorithm.js';
import { svidRefusal } from './svid-refusal.js';

/**
 * docs/protocol.md#client-authentication, check 7 ("Signature verifies against the identity provider JWT
 * bundle, key chosen by kid") → 401 invalid_client; and, with no JWT bundle available (the same table), → 503
 * temporarily_unavailable, the reason in the audit only. The lookup is synchronous (keys imported when the
 * bundle arrived), so a stalled bundle source answers "unavailable" at once instead of holding the request.
 */
export async function checkSvidSignature(
  svid: UnverifiedSvid,
  subject: SvidSubject,
  bundles: JwtBundleSource,
): Promise<void> {
  try {
    await verifySvidSignature(svid.token, svid.header, bundles.keysFor(subject.trustDomain));
  } catch (err) {
    throw svidRefusal(err, {
      bundle_unavailable: 'ERR_BUNDLE_UNAVAILABLE',
      untrusted: 'ERR_SVID_UNTRUSTED',
      kid: 'ERR_SVID_KEY_UNKNOWN',
      algorithm: 'ERR_SVID_KEY_ALGORITHM',
      signature: 'ERR_SVID_SIGNATURE',
    });
  }
}
