import { resourceForm } from '../oauth/identifier.js';
import { formatScope } from '../oauth/scope.js';
import type { Clock } from '../shared/clock.js';
import { systemClock } from '../shared/clock.js';
import type { AccessToken } from './token-request.js';

/**
 * Ours: a token is reused while more than a minute of it is left, so a call started with it
 * finishes well before the server sees it expire (the token lives 300 s; clocks may differ by seconds).
 */
export const DEFAULT_REUSE_MARGIN_MS = 60_000;

/** What a token is for. MCP 2026-07-28 (SEP-2352): credentials are keyed by the issuer that minted them. */
export interface TokenCacheKey {
  readonly resource: string;
  readonly issuer: string;
  readonly scope: string;
}

/**
 * Access tokens by (resource, issuer, scope), handed out again until `reuseMarginMs` before they
 * expire. Scopes compare as sets; the resource compares in the resource form (docs/protocol.md#identifiers).
 */
export class AccessTokenCache {
  readonly reuseMarginMs: number;
  readonly #clock: Clock;
  readonly #tokens = new Map<string, AccessToken>();

  constructor(options: { clock?: Clock; reuseMarginMs?: number } = {}) {
    this.#clock = options.clock ?? systemClock;
    this.reuseMarginMs = options.reuseMarginMs ?? DEFAULT_REUSE_MARGIN_MS;
  }

  get(key: TokenCacheKey): AccessToken | undefined {
    const id = cacheId(key);
    const token = this.#tokens.get(id);
    if (token === undefined) return undefined;
    if (this.isFresh(token)) return token;
    this.#tokens.delete(id);
    return undefined;
  }

  set(key: TokenCacheKey, token: AccessToken): void {
    this.#tokens.set(cacheId(key), token);
  }

  /** Whether `token` still has more than the reuse margin left. */
  isFresh(token: AccessToken): boolean {
    return token.expiresAt.getTime() - this.#clock() > this.reuseMarginMs;
  }
}

function cacheId(key: TokenCacheKey): string {
  const resource = resourceForm(key.resource);
  const scopes = formatScope(new Set(key.scope.split(' ')));
  return JSON.stringify([resource.ok ? resource.value : key.resource, key.issuer, scopes]);
}
