import type { SvidSubject } from '../spiffe/svid/subject.js';
import { svidSubject } from '../spiffe/svid/subject.js';
import { svidRefusal } from './svid-refusal.js';

/**
 * docs/protocol.md#client-authentication, check 6 ("sub is a valid SPIFFE ID in the policy trust domain") →
 * 401 invalid_client. Checked before the signature so no key of another trust domain is ever looked up.
 */
export function checkSvidSubject(claims: Record<string, unknown>, trustDomain: string): SvidSubject {
  try {
    return svidSubject(claims, trustDomain);
  } catch (err) {
    throw svidRefusal(err, { subject: 'ERR_SVID_SUBJECT', trust_domain: 'ERR_SVID_TRUST_DOMAIN' });
  }
}
