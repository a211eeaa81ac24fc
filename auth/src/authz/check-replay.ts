import { tokenError } from '../errors/token-endpoint-errors.js';
import type { SvidSubject } from '../spiffe/svid/subject.js';
import { quoted } from './audit-detail.js';
import type { UnverifiedSvid } from './check-svid-algorithm.js';
import type { SvidTimes } from './check-svid-claims.js';
import { SVID_LEEWAY_S } from './check-svid-claims.js';
import type { ReplayCache } from './replay-cache.js';

export const REPLAY_MODES = ['reject', 'allow-reuse-within-lifetime'] as const;
export type ReplayMode = (typeof REPLAY_MODES)[number];

/**
 * Spec rows "reject mode: (sub, jti) not seen before" → 401 invalid_client and "reject mode: replay
 * cache has room" → 503 temporarily_unavailable, in that order. Only assertions that passed the
 * signature, audience and lifetime checks get here, so only those are recorded; an entry lives
 * until exp + 30 s, when the assertion could no longer pass the expiry check anyway.
 *
 * In allow-reuse-within-lifetime mode nothing is refused: the use count is returned for the audit
 * line (null once the cache is full and the use cannot be counted). An SVID without jti is then
 * recognised by its signature.
 *
 * Returns how many times this assertion has been presented, this time included.
 */
export function checkReplay(
  cache: ReplayCache,
  mode: ReplayMode,
  svid: UnverifiedSvid,
  subject: SvidSubject,
  times: SvidTimes,
  jti: string | undefined,
): number | null {
  // A SPIFFE ID has no newline, so the key cannot be forged by a jti that contains one.
  const key =
    jti === undefined
      ? `${subject.id}\ns${svid.token.slice(svid.token.lastIndexOf('.') + 1)}`
      : `${subject.id}\nj${jti}`;
  const result = cache.record(key, (times.exp + SVID_LEEWAY_S) * 1000);
  if (mode === 'allow-reuse-within-lifetime') {
    return result.kind === 'first' ? 1 : result.kind === 'seen' ? result.uses : null;
  }
  if (result.kind === 'seen') {
    throw tokenError('ERR_SVID_REPLAYED', `jti ${quoted(jti)} of ${subject.id} already used (use ${result.uses})`);
  }
  if (result.kind === 'full') {
    throw tokenError('ERR_REPLAY_CACHE_FULL', `replay cache holds ${cache.capacity} live entries`);
  }
  return 1;
}
