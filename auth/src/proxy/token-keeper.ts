import { REFRESH_RETRY_BACKOFF, refreshDelayMs } from '../agent/token-refresh.js';
import type { AccessToken } from '../agent/token-request.js';
import { backoffDelayMs } from '../shared/backoff.js';
import type { Clock } from '../shared/clock.js';

/** Ours: a token is not sent with less than this left (or a quarter of its life, if shorter). */
const SEND_MARGIN_MS = 5_000;

export interface TokenKeeperOptions {
  /** One run of the discovery chain (docs/protocol.md#agent-notegate-agent, steps 1–5). */
  readonly fetchToken: () => Promise<AccessToken>;
  /** Replace a token once this much of it is left (docs/protocol.md#proxy). */
  readonly refreshMarginMs: number;
  readonly clock: Clock;
  readonly onToken?: (token: AccessToken) => void;
  readonly onFailure?: (err: unknown) => void;
}

interface HeldToken {
  readonly token: AccessToken;
  /** From here on, a request starts a refresh in the background and still uses this token. */
  refreshAtMs: number;
  /** From here on, a request waits for a new token. */
  readonly usableUntilMs: number;
}

/**
 * The proxy's access token (docs/protocol.md#proxy). Fetched on demand, never on a timer, so an idle
 * proxy mints nothing. Once the refresh point is reached, the next request goes out with the current
 * token and starts one refresh in the background right after; only a missing or nearly expired token makes a
 * request wait. All waiting requests share one fetch. A failed background refresh is retried by a
 * later request after a capped backoff. `reject` drops a token the server answered 401 to, so the next
 * `bearer()` fetches a new one — once per request, the transport never retries twice.
 */
export class TokenKeeper {
  readonly #options: TokenKeeperOptions;
  #held: HeldToken | undefined;
  #inflight: Promise<AccessToken> | undefined;
  #failures = 0;

  constructor(options: TokenKeeperOptions) {
    this.#options = options;
  }

  /** The scope of the token in use, for messages. */
  get scope(): string | undefined {
    return this.#held?.token.scope;
  }

  /** Starts the first fetch at once, so the first request need not wait for it; failures are reported. */
  prefetch(): void {
    this.#refresh().catch(() => undefined);
  }

  /** The access token for the next request. */
  async bearer(): Promise<string> {
    const held = this.#held;
    const nowMs = this.#options.clock();
    if (held !== undefined && nowMs < held.usableUntilMs) {
      if (nowMs >= held.refreshAtMs && this.#inflight === undefined) this.#refreshInBackground(held);
      return held.token.accessToken;
    }
    return (await this.#refresh()).accessToken;
  }

  /** The server refused `accessToken` (401): stop using it, unless it was already replaced. */
  reject(accessToken: string): void {
    if (this.#held?.token.accessToken === accessToken) this.#held = undefined;
  }

  /** The fetch in flight, or a new one; `later` lets the request that asked go out first. */
  #refresh(later = false): Promise<AccessToken> {
    if (this.#inflight === undefined) {
      const fetching = later
        ? new Promise((resolve) => setImmediate(resolve)).then(() => this.#fetch())
        : this.#fetch();
      this.#inflight = fetching.finally(() => {
        this.#inflight = undefined;
      });
    }
    return this.#inflight;
  }

  #refreshInBackground(held: HeldToken): void {
    this.#refresh(true).catch(() => {
      held.refreshAtMs = this.#options.clock() + backoffDelayMs(REFRESH_RETRY_BACKOFF, this.#failures - 1);
    });
  }

  async #fetch(): Promise<AccessToken> {
    try {
      const token = await this.#options.fetchToken();
      this.#held = held(token, this.#options.clock(), this.#options.refreshMarginMs);
      this.#failures = 0;
      this.#options.onToken?.(token);
      return token;
    } catch (err) {
      this.#failures += 1;
      this.#options.onFailure?.(err);
      throw err;
    }
  }
}

function held(token: AccessToken, nowMs: number, marginMs: number): HeldToken {
  const expiresAtMs = token.expiresAt.getTime();
  const lifetimeMs = expiresAtMs - nowMs;
  return {
    token,
    refreshAtMs: nowMs + refreshDelayMs(expiresAtMs, nowMs, marginMs),
    usableUntilMs: expiresAtMs - Math.min(SEND_MARGIN_MS, lifetimeMs / 4),
  };
}
