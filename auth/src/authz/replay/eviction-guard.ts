import type { Clock } from '../../shared/clock.js';
import { ReplayStoreError } from './replay-store.js';

/**
 * docs/protocol.md#replay-store: the only `maxmemory-policy` under which Redis never drops a key to
 * make room. Every other one may evict notegate's entries (they all have a TTL, so the volatile-*
 * policies too), and an evicted entry would let its assertion be accepted again.
 */
export const SAFE_EVICTION_POLICY = 'noeviction';

/** What the last look at the server's eviction policy found. */
export type EvictionCheck =
  | { readonly kind: 'unchecked' }
  | { readonly kind: 'safe' }
  | { readonly kind: 'evicting'; readonly policy: string }
  /** The server answered, but not with a policy: an error reply (an ACL without +info) or no such field. */
  | { readonly kind: 'unreadable'; readonly reason: string };

/** The `maxmemory_policy` field of an `INFO memory` answer, or undefined when it has none. */
export function maxmemoryPolicyOf(info: string): string | undefined {
  return /^maxmemory_policy:(\S+)\s*$/m.exec(info)?.[1];
}

/** Why reject mode cannot use a store whose check found `check`, for the operator; undefined when it can. */
export function evictionProblem(check: EvictionCheck): string | undefined {
  switch (check.kind) {
    case 'safe':
      return undefined;
    case 'unchecked':
      return `its maxmemory-policy has not been read yet; reject mode needs ${SAFE_EVICTION_POLICY}`;
    case 'evicting':
      return (
        `maxmemory-policy is ${check.policy}: Redis may evict used assertions, which would then be accepted ` +
        `again; reject mode needs ${SAFE_EVICTION_POLICY} (CONFIG SET maxmemory-policy ${SAFE_EVICTION_POLICY})`
      );
    case 'unreadable':
      return `cannot read its maxmemory-policy (INFO memory: ${check.reason}); reject mode needs to see ${SAFE_EVICTION_POLICY} (an ACL user needs +info)`;
  }
}

export interface EvictionGuardOptions {
  /**
   * Asks the server: resolves with its `INFO memory` text, or rejects. A rejection that `isReply`
   * calls an error reply is an answer (unreadable); any other (no connection, no answer in time)
   * leaves the last finding in force.
   */
  readonly readInfo: () => Promise<string>;
  readonly isReply: (err: unknown) => boolean;
  readonly clock: Clock;
  /** Told each time the finding changes, with the one before. */
  readonly onChange: (check: EvictionCheck, previous: EvictionCheck) => void;
  /** A store found unfit is asked again at most this often, on demand. */
  readonly recheckIntervalMs?: number;
}

const RECHECK_INTERVAL_MS = 1_000;

/**
 * Whether a Redis replay store may be used in reject mode (docs/protocol.md#replay-store): the
 * server's `maxmemory-policy` is read when a connection is made and every few seconds after; a
 * store not known to be safe is refused, and asked again at most once a second while records come,
 * so a fixed setting is used within a second.
 */
export class EvictionGuard {
  readonly #options: EvictionGuardOptions;
  #current: EvictionCheck = { kind: 'unchecked' };
  #checking: Promise<EvictionCheck> | undefined;
  #checkedAtMs = Number.NEGATIVE_INFINITY;
  readonly #settled: Promise<EvictionCheck>;
  #settle: (check: EvictionCheck) => void = () => {};

  constructor(options: EvictionGuardOptions) {
    this.#options = options;
    this.#settled = new Promise((resolve) => {
      this.#settle = resolve;
    });
  }

  get current(): EvictionCheck {
    return this.#current;
  }

  /** The first finding the server gave (never `unchecked`); pending until one arrives. */
  firstAnswer(): Promise<EvictionCheck> {
    return this.#settled;
  }

  /** Reads the policy now (one read at a time); resolves with the finding in force after it. */
  check(): Promise<EvictionCheck> {
    this.#checking ??= this.#read().finally(() => {
      this.#checking = undefined;
    });
    return this.#checking;
  }

  /** Throws a ReplayStoreError unless the store is known to be safe; asks again first when it may be stale. */
  async require(): Promise<void> {
    if (this.#current.kind === 'safe') return;
    const due = this.#options.clock() - this.#checkedAtMs >= (this.#options.recheckIntervalMs ?? RECHECK_INTERVAL_MS);
    const check = due || this.#checking ? await this.check() : this.#current;
    const problem = evictionProblem(check);
    if (problem !== undefined) throw new ReplayStoreError('error', problem);
  }

  async #read(): Promise<EvictionCheck> {
    this.#checkedAtMs = this.#options.clock();
    let found: EvictionCheck;
    try {
      const policy = maxmemoryPolicyOf(await this.#options.readInfo());
      if (policy === undefined) found = { kind: 'unreadable', reason: 'no maxmemory_policy field' };
      else found = policy === SAFE_EVICTION_POLICY ? { kind: 'safe' } : { kind: 'evicting', policy };
    } catch (err) {
      if (!this.#options.isReply(err)) return this.#current;
      found = { kind: 'unreadable', reason: err instanceof Error ? err.message : String(err) };
    }
    this.#settle(found);
    if (!sameCheck(found, this.#current)) {
      const previous = this.#current;
      this.#current = found;
      this.#options.onChange(found, previous);
    }
    return found;
  }
}

function sameCheck(a: EvictionCheck, b: EvictionCheck): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
