import { clip } from '../../shared/clip.js';
import type { SpiffeId } from '../spiffe-id.js';
import { parseSpiffeId, SpiffeIdError } from '../spiffe-id.js';
import { SvidError } from './svid-error.js';

export interface SvidSubject extends SpiffeId {
  /** The `sub` claim as sent. */
  readonly id: string;
}

/**
 * JWT-SVID §3.1: `sub` is the SPIFFE ID. When `expectedTrustDomain` is given (the policy's), a subject
 * from any other trust domain is refused before a key is even looked up.
 */
export function svidSubject(claims: Record<string, unknown>, expectedTrustDomain?: string): SvidSubject {
  const { sub } = claims;
  if (typeof sub !== 'string') throw new SvidError('subject', 'sub is missing or not a string');
  let parsed: SpiffeId;
  try {
    parsed = parseSpiffeId(sub);
  } catch (err) {
    if (err instanceof SpiffeIdError) throw new SvidError('subject', `sub ${err.message}`);
    throw err;
  }
  if (expectedTrustDomain !== undefined && parsed.trustDomain !== expectedTrustDomain) {
    throw new SvidError('trust_domain', `sub ${clip(sub)} is not in trust domain ${expectedTrustDomain}`);
  }
  return { ...parsed, id: sub };
}
