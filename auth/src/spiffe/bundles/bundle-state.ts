import type { JwtBundleSource, KeysResult, TrustDomainKeys } from './jwt-bundle-source.js';
import { BundleUnavailableError } from './jwt-bundle-source.js';

/** What is known about one trust domain: its keys, or why its bundle could not be used. */
export type TrustDomainEntry =
  | { readonly kind: 'keys'; readonly keys: TrustDomainKeys }
  | { readonly kind: 'invalid'; readonly reason: string };

/**
 * The snapshot every bundle source serves from: replaced as a whole on each update, read
 * synchronously by `keysFor`, and awaited once through `ready`.
 */
class BundleState {
  private domains: ReadonlyMap<string, TrustDomainEntry> | null = null;
  private unavailableReason: string;
  private readonly waiters = new Set<{ resolve: () => void; reject: (err: Error) => void }>();

  constructor(initialReason: string) {
    this.unavailableReason = initialReason;
  }

  get known(): boolean {
    return this.domains !== null;
  }

  /** Replaces the whole state: a trust domain missing from `domains` is no longer trusted. */
  replace(domains: ReadonlyMap<string, TrustDomainEntry>): void {
    this.domains = domains;
    for (const waiter of this.waiters) waiter.resolve();
    this.waiters.clear();
  }

  /** Forgets every key: from now on every lookup is `unavailable` with this reason (fail closed). */
  markUnavailable(reason: string): void {
    this.domains = null;
    this.unavailableReason = reason;
  }

  keysFor(trustDomain: string): KeysResult {
    if (this.domains === null) return { status: 'unavailable', reason: this.unavailableReason };
    const entry = this.domains.get(trustDomain);
    if (entry === undefined) {
      return { status: 'untrusted', reason: `trust domain ${trustDomain} is not in the JWT bundle` };
    }
    if (entry.kind === 'invalid') return { status: 'unavailable', reason: entry.reason };
    if (entry.keys.size === 0) {
      return { status: 'untrusted', reason: `the bundle of ${trustDomain} has no JWT-SVID keys` };
    }
    return { status: 'ok', trustDomain, keys: entry.keys };
  }

  ready(timeoutMs: number): Promise<void> {
    if (this.known) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter = {
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
        reject: (err: Error) => {
          clearTimeout(timer);
          reject(err);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new BundleUnavailableError(`none after ${timeoutMs} ms (${this.unavailableReason})`));
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }

  close(): void {
    this.markUnavailable('bundle source closed');
    for (const waiter of this.waiters) waiter.reject(new BundleUnavailableError('bundle source closed'));
    this.waiters.clear();
  }
}

/** The read side every source shares: lookups and readiness come straight from its BundleState. */
export abstract class StateBackedBundleSource implements JwtBundleSource {
  protected readonly state: BundleState;

  protected constructor(initialReason: string) {
    this.state = new BundleState(initialReason);
  }

  keysFor(trustDomain: string): KeysResult {
    return this.state.keysFor(trustDomain);
  }

  ready(timeoutMs: number): Promise<void> {
    return this.state.ready(timeoutMs);
  }

  abstract close(): Promise<void>;
}
