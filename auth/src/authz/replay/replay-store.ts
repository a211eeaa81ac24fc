/** What recording one use of an assertion found (docs/protocol.md#replay-store). */
export type RecordResult =
  | { readonly kind: 'first' }
  | { readonly kind: 'seen'; readonly uses: number }
  | { readonly kind: 'full' }
  | { readonly kind: 'share_full' };

export const FIRST_USE: RecordResult = Object.freeze({ kind: 'first' });
export const STORE_FULL: RecordResult = Object.freeze({ kind: 'full' });
export const SHARE_FULL: RecordResult = Object.freeze({ kind: 'share_full' });

/** One use of an assertion to remember. */
export interface ReplayEntry {
  /** The SPIFFE ID that presented it: its entries count against its share of the capacity. */
  readonly owner: string;
  /** What tells the assertion apart among the owner's: `j<jti>`, or `s<signature>` without a jti. */
  readonly id: string;
  /** Epoch ms until which the entry is kept. */
  readonly untilMs: number;
}

/**
 * The seen-set of client assertions: in memory (one process) or in Redis (shared by replicas). An
 * entry is kept until its deadline; a new one is refused, never made room for, when the store holds
 * `capacity` live entries or its owner holds `shareLimit` of them (docs/protocol.md#replay-store).
 */
export interface ReplayStore {
  /** `memory` or `redis`: labels the metrics and the operator's messages. */
  readonly kind: string;
  readonly capacity: number;
  /**
   * Records one use of `entry`. A repeated use is counted whatever the bounds; a first use is refused
   * with `share_full` when the owner already holds `shareLimit` live entries, else with `full` when
   * the store holds `capacity`. Throws (or rejects with) a ReplayStoreError when the store cannot
   * answer in time.
   */
  record(entry: ReplayEntry, shareLimit: number): RecordResult | Promise<RecordResult>;
  /** Entries held now (an expired entry the store has not reclaimed yet may count). */
  liveEntries(): Promise<number>;
  close(): Promise<void>;
}

/** The key of an entry: a SPIFFE ID has no space, so no id can make two owners' keys collide. */
export function replayKey(entry: Pick<ReplayEntry, 'owner' | 'id'>): string {
  return `${entry.owner} ${entry.id}`;
}

/** Why a store could not answer: no connection, no answer within the time bound, or an error reply. */
export type ReplayStoreFailure = 'unreachable' | 'timeout' | 'error';

export class ReplayStoreError extends Error {
  readonly failure: ReplayStoreFailure;

  constructor(failure: ReplayStoreFailure, message: string) {
    super(message);
    this.name = 'ReplayStoreError';
    this.failure = failure;
  }
}
