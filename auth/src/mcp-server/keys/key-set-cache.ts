import { describeThrown } from '@notegate/kit';
import { type CryptoKey, importJWK } from 'jose';
import { bearerError } from '../../errors/bearer-errors.js';
import { clip } from '../../shared/clip.js';
import type { Clock } from '../../shared/clock.js';
import type { KeySet, PublicJwk } from './key-set-document.js';
import { reconcileKeySet } from './key-set-document.js';

/** docs/protocol.md#limits: a key-set refetch (for an unknown kid, or after a failure) at most once every 10 s. */
const REFETCH_INTERVAL_MS = 10_000;
/**
 * docs/protocol.md#key-set-refetch: a fetched key set is trusted this long; then the next request
 * refetches it, so a key removed at the authorization server stops working here within a minute
 * (sooner on SIGHUP: refetchNow). Longer would outlast the tokens the removed key may have signed.
 */
export const KEY_SET_MAX_AGE_MS = 60_000;

export interface KeySetCacheOptions {
  /** Fetches and parses the key set from --jwks-uri; throws on any failure. */
  readonly fetchKeySet: () => Promise<KeySet>;
  readonly clock: Clock;
  readonly refetchIntervalMs?: number;
  readonly maxAgeMs?: number;
  /** Called when a fetch removed or changed a key trusted before (the verified-token cache is cleared then). */
  readonly onKeysRevoked?: () => void;
  /** Told about every fetch attempt and its result (the metrics count them). */
  readonly onFetched?: (result: 'ok' | 'failed') => void;
}

/**
 * The authorization server's keys, fetched only from the configured URL.
 *
 * Why not jose's createRemoteJWKSet: its cooldown runs on Date.now() (no
 * injectable clock, so rotation tests would sleep), it counts the cooldown only
 * from the last *successful* fetch (a failing key-set endpoint would be
 * refetched on every request: a fetch storm during an outage), and a failed
 * fetch is not distinguishable from a bad token without parsing messages. This
 * small cache keeps jose for what jose does (JWK import, JWS verification) and
 * owns the refetch rule of docs/protocol.md#bearer-checks: one fetch attempt, successful or not, per 10 s;
 * concurrent requests share one in-flight fetch; any fetch failure is
 * `jwks_unavailable` (fail closed).
 */
export class KeySetCache {
  readonly #options: KeySetCacheOptions;
  readonly #refetchIntervalMs: number;
  readonly #maxAgeMs: number;
  #keys: KeySet | undefined;
  #fetchedAtMs = Number.NEGATIVE_INFINITY;
  #attemptedAtMs = Number.NEGATIVE_INFINITY;
  #lastFailure = 'no fetch attempted yet';
  #inFlight: Promise<boolean> | undefined;
  readonly #imported = new WeakMap<PublicJwk, Promise<CryptoKey>>();

  constructor(options: KeySetCacheOptions) {
    this.#options = options;
    this.#refetchIntervalMs = options.refetchIntervalMs ?? REFETCH_INTERVAL_MS;
    this.#maxAgeMs = options.maxAgeMs ?? KEY_SET_MAX_AGE_MS;
  }

  /** The key for `kid`; refetches at most once per interval when the kid is unknown or the set is stale. */
  async keyFor(kid: string): Promise<PublicJwk> {
    if (this.#keys === undefined || this.#isStale()) await this.#refreshOrFail('key set absent or stale');
    const known = this.#keys?.get(kid);
    if (known) return known;
    if (!this.#mayFetch()) {
      throw bearerError('ERR_KEY_UNKNOWN', `kid ${clip(kid)} not in key set; refetch rate-limited`);
    }
    await this.#refreshOrFail(`kid ${clip(kid)} unknown`);
    const fetched = this.#keys?.get(kid);
    if (fetched) return fetched;
    throw bearerError('ERR_KEY_UNKNOWN', `kid ${clip(kid)} not in refetched key set`);
  }

  /** Whether the set was fetched within the maximum age: what was verified with it may be trusted still. */
  isFresh(): boolean {
    return this.#keys !== undefined && !this.#isStale();
  }

  /**
   * The operator's refetch (docs/protocol.md#key-set-refetch): the set in memory is no longer trusted,
   * and one fetch starts now, whatever the rate limit. A fetch already under way may carry the set of
   * before the request, so this one starts after it. Until a fetch succeeds, requests refetch (rate
   * limited) and fail closed. Resolves with the kids of the new set, or rejects with why it failed.
   */
  async refetchNow(): Promise<readonly string[]> {
    await this.#inFlight;
    this.#fetchedAtMs = Number.NEGATIVE_INFINITY;
    if (!(await this.#refresh())) throw new Error(this.#lastFailure);
    return [...(this.#keys?.keys() ?? [])];
  }

  /** The imported P-256 verification key (public members only), imported once per key (refetches keep unchanged entries). */
  cryptoKeyFor(jwk: PublicJwk): Promise<CryptoKey> {
    let imported = this.#imported.get(jwk);
    if (!imported) {
      imported = importJWK({ kty: 'EC', crv: jwk.crv, x: jwk.x, y: jwk.y }, 'ES256').then((key) => {
        if (key instanceof Uint8Array) throw new Error('a symmetric key cannot verify ES256');
        return key;
      });
      this.#imported.set(jwk, imported);
    }
    return imported;
  }

  #isStale(): boolean {
    return this.#options.clock() - this.#fetchedAtMs >= this.#maxAgeMs;
  }

  #mayFetch(): boolean {
    return this.#inFlight !== undefined || this.#options.clock() - this.#attemptedAtMs >= this.#refetchIntervalMs;
  }

  async #refreshOrFail(why: string): Promise<void> {
    if (!this.#mayFetch()) {
      throw bearerError('ERR_JWKS_UNAVAILABLE', `${why}; last fetch failed: ${this.#lastFailure}; retry rate-limited`);
    }
    const ok = await this.#refresh();
    if (!ok) throw bearerError('ERR_JWKS_UNAVAILABLE', `${why}; ${this.#lastFailure}`);
  }

  /** One shared fetch; resolves whether it succeeded. */
  #refresh(): Promise<boolean> {
    if (this.#inFlight) return this.#inFlight;
    this.#attemptedAtMs = this.#options.clock();
    const attempt = this.#options.fetchKeySet().then(
      (keys) => {
        const reconciled = reconcileKeySet(this.#keys, keys);
        this.#keys = reconciled.keys;
        this.#fetchedAtMs = this.#options.clock();
        if (reconciled.revoked) this.#options.onKeysRevoked?.();
        this.#options.onFetched?.('ok');
        return true;
      },
      (err: unknown) => {
        this.#lastFailure = describeThrown(err);
        this.#options.onFetched?.('failed');
        return false;
      },
    );
    this.#inFlight = attempt.finally(() => {
      this.#inFlight = undefined;
    });
    return this.#inFlight;
  }
}
