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

/** The assertion, as the checks before this one left it. */
export interface CheckedAssertion {
  readonly svid: UnverifiedSvid;
  readonly subject: SvidSubject;
  readonly times: SvidTimes;
  readonly jti: string | undefined;
}

/**
 * docs/protocol.md#replay-store: the live entries one SPIFFE ID may hold, an equal part of the
 * capacity for each identity the policy grants. The parts add up to at most the capacity, so a
 * workload minting assertions as fast as it can fills its own part and never another's.
 */
export function replayShareLimit(capacity: number, grantedIdentities: number): number {
  return Math.max(1, Math.floor(capacity / Math.max(1, grantedIdentities)));
}

/**
 * Checks 16 to 18, "reject mode: (sub, jti) not seen before" → 401 invalid_client, "the SPIFFE ID's share of
 * the replay store has room" and "the replay store has room" → 503 temporarily_unavailable of
 * docs/protocol.md#client-authentication, in that order, and a store that does not answer in time →
 * 503 (docs/protocol.md#replay-store). They come last: only an assertion that would get a token
 * (authenticated, and granted by the policy) takes room, so a valid SVID the policy does not name
 * cannot fill the store. An entry lives until exp + 30 s, when the assertion could no longer pass the
 * expiry check anyway.
 *
 * In allow-reuse-within-lifetime mode nothing is refused: the use count is returned for the audit
 * line (null when the store or the share is full, or the store is down, and the use cannot be
 * counted). An SVID without jti is then recognised by its signature.
 *
 * Returns how many times this assertion has been presented, this time included.
 */
export async function checkReplay(
  store: ReplayStore,
  mode: ReplayMode,
  assertion: CheckedAssertion,
  shareLimit: number,
): Promise<number | null> {
  const { svid, subject, times, jti } = assertion;
  const id = jti === undefined ? `s${svid.token.slice(svid.token.lastIndexOf('.') + 1)}` : `j${jti}`;
  let result: RecordResult;
  try {
    result = await store.record({ owner: subject.id, id, untilMs: (times.exp + SVID_LEEWAY_S) * 1000 }, shareLimit);
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
  if (result.kind === 'share_full') {
    throw tokenError(
      'ERR_REPLAY_SHARE_FULL',
      `${subject.id} holds ${shareLimit} live entries, its share of the ${store.kind} replay store's ${store.capacity}`,
    );
  }
  if (result.kind === 'full') {
    throw tokenError('ERR_REPLAY_STORE_FULL', `${store.kind} replay store holds ${store.capacity} live entries`);
  }
  return 1;
}
