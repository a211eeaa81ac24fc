import { describeThrown } from '@notegate/kit';
import { tokenError } from '../errors/token-endpoint-errors.js';
import type { SvidSubject } from '../spiffe/svid/subject.js';
import { CACHING_SOURCE_ADVICE, quoted } from './audit-detail.js';
import type { UnverifiedSvid } from './check-svid-algorithm.js';
import type { SvidTimes } from './check-svid-claims.js';
import { SVID_LEEWAY_S } from './check-svid-claims.js';
import type { RecordResult, ReplayStore } from './replay/replay-store.js';

export const REPLAY_MODES = ['reject', 'allow-reuse-within-lifetime'] as const;
export type ReplayMode = (typeof REPLAY_MODES)[number];

/**
 * Rows "reject mode: (sub, jti) not seen before" → 401 invalid_client and "reject mode: the replay
 * store has room" → 503 temporarily_unavailable of docs/protocol.md#client-authentication, in that
 * order, and a store that does not answer in time → 503 (docs/protocol.md#replay-store). Only
 * assertions that passed the signature, audience and lifetime checks get here, so only those are
 * recorded; an entry lives until exp + 30 s, when the assertion could no longer pass the expiry
 * check anyway.
 *
 * In allow-reuse-within-lifetime mode nothing is refused: the use count is returned for the audit
 * line (null when the store is full or down and the use cannot be counted). An SVID without jti is
 * then recognised by its signature.
 *
 * Returns how many times this assertion has been presented, this time included.
 */
export async function checkReplay(
  store: ReplayStore,
  mode: ReplayMode,
  svid: UnverifiedSvid,
  subject: SvidSubject,
  times: SvidTimes,
  jti: string | undefined,
): Promise<number | null> {
  // A SPIFFE ID has no space, so the key cannot be forged by a jti that contains one.
  const key =
    jti === undefined ? `${subject.id} s${svid.token.slice(svid.token.lastIndexOf('.') + 1)}` : `${subject.id} j${jti}`;
  let result: RecordResult;
  try {
    result = await store.record(key, (times.exp + SVID_LEEWAY_S) * 1000);
  } catch (err) {
    if (mode === 'allow-reuse-within-lifetime') return null;
    throw tokenError('ERR_REPLAY_STORE_UNAVAILABLE', `${store.kind} replay store: ${describeThrown(err)}`);
  }
  if (mode === 'allow-reuse-within-lifetime') {
    return result.kind === 'first' ? 1 : result.kind === 'seen' ? result.uses : null;
  }
  if (result.kind === 'seen') {
    const times = result.uses === 2 ? 'twice' : `${result.uses} times`;
    throw tokenError(
      'ERR_SVID_REPLAYED',
      `jti ${quoted(jti)} of ${subject.id} already used (use ${result.uses}): the same SVID was presented ${times}. ` +
        `${CACHING_SOURCE_ADVICE}`,
    );
  }
  if (result.kind === 'full') {
    throw tokenError('ERR_REPLAY_STORE_FULL', `${store.kind} replay store holds ${store.capacity} live entries`);
  }
  return 1;
}
