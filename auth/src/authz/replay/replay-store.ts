/** What recording one use of an assertion found (docs/protocol.md#replay-store). */
export type RecordResult =
  | { readonly kind: 'first' }
  | { readonly kind: 'seen'; readonly uses: number }
  | { readonly kind: 'full' };

export const FIRST_USE: RecordResult = Object.freeze({ kind: 'first' });
export const STORE_FULL: RecordResult = Object.freeze({ kind: 'full' });

/**
 * The seen-set of client assertions: in memory (one process) or in Redis (shared by replicas). A
 * record is kept until its deadline; a new one is refused, never made room for, when the store holds
 * `capacity` live entries.
 */
export interface ReplayStore {
  /** `memory` or `redis`: labels the metrics and the operator's messages. */
  readonly kind: string;
  readonly capacity: number;
  /**
   * Records one use of `key`, kept until `untilMs` (epoch ms). Throws (or rejects with) a
   * ReplayStoreError when the store cannot answer in time.
   */
  record(key: string, untilMs: number): RecordResult | Promise<RecordResult>;
  /** Entries held now (an expired entry the store has not reclaimed yet may count). */
  liveEntries(): Promise<number>;
  close(): Promise<void>;
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
