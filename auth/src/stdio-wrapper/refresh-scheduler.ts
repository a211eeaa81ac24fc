import { REFRESH_RETRY_BACKOFF, refreshDelayMs } from '../agent/token-refresh.js';
import type { AccessToken } from '../agent/token-request.js';
import type { BackoffPolicy } from '../shared/backoff.js';
import { backoffDelayMs } from '../shared/backoff.js';
import type { Clock } from '../shared/clock.js';
import type { Timers } from './timers.js';

export interface RefreshSchedulerOptions {
  /** A token for the resource; the wrapper's goes through a cache whose reuse margin is `refreshMarginMs`. */
  readonly fetchToken: () => Promise<AccessToken>;
  /** Puts a new token in place (writes the token file); a failure counts as a failed refresh. */
  readonly install: (token: AccessToken) => Promise<void>;
  /** The current token expired without a successful refresh; the scheduler has stopped. */
  readonly onExpired: (lastError: unknown) => void;
  /** A refresh failed; the next attempt is `delayMs` away. */
  readonly onRetry?: (error: unknown, delayMs: number) => void;
  /** Refresh once a token has this much or less left. */
  readonly refreshMarginMs: number;
  readonly backoff?: BackoffPolicy;
  readonly clock: Clock;
  readonly timers: Timers;
}

/**
 * Keeps a token fresh: refreshes `refreshMarginMs` before expiry, retries failures with capped backoff,
 * and reports expiry if no refresh succeeded in time. One attempt at a time; after `stop()` nothing
 * more happens, even when an attempt that was in flight completes.
 */
export class RefreshScheduler {
  readonly #options: RefreshSchedulerOptions;
  #current: AccessToken;
  #failures = 0;
  #lastError: unknown;
  #stopped = false;
  #cancelRefresh: () => void = () => undefined;
  #cancelExpiry: () => void = () => undefined;

  constructor(options: RefreshSchedulerOptions, initial: AccessToken) {
    this.#options = options;
    this.#current = initial;
  }

  get current(): AccessToken {
    return this.#current;
  }

  start(): void {
    this.#arm();
  }

  stop(): void {
    this.#stopped = true;
    this.#cancelRefresh();
    this.#cancelExpiry();
  }

  #arm(): void {
    const { clock, timers, refreshMarginMs } = this.#options;
    const expiresAtMs = this.#current.expiresAt.getTime();
    this.#cancelRefresh();
    this.#cancelRefresh = timers.schedule(
      () => void this.#refresh(),
      refreshDelayMs(expiresAtMs, clock(), refreshMarginMs),
    );
    this.#armExpiry();
  }

  #armExpiry(): void {
    this.#cancelExpiry();
    const delayMs = this.#current.expiresAt.getTime() - this.#options.clock();
    this.#cancelExpiry = this.#options.timers.schedule(() => this.#checkExpiry(), Math.max(0, delayMs));
  }

  async #refresh(): Promise<void> {
    if (this.#stopped) return;
    try {
      const token = await this.#options.fetchToken();
      if (this.#stopped) return;
      if (token.accessToken !== this.#current.accessToken) {
        await this.#options.install(token);
        if (this.#stopped) return;
        this.#current = token;
      }
      this.#failures = 0;
      this.#lastError = undefined;
      this.#arm();
    } catch (err) {
      if (this.#stopped) return;
      this.#lastError = err;
      const delayMs = backoffDelayMs(this.#options.backoff ?? REFRESH_RETRY_BACKOFF, this.#failures);
      this.#failures += 1;
      this.#options.onRetry?.(err, delayMs);
      this.#cancelRefresh = this.#options.timers.schedule(() => void this.#refresh(), delayMs);
    }
  }

  /** A timer may fire early (long delays are clamped); expiry is decided by the clock. */
  #checkExpiry(): void {
    if (this.#stopped) return;
    if (this.#options.clock() < this.#current.expiresAt.getTime()) {
      this.#armExpiry();
      return;
    }
    this.stop();
    this.#options.onExpired(this.#lastError);
  }
}
