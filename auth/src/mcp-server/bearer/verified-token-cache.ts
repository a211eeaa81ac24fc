import type { AccessTokenClaims } from '../../oauth/access-token.js';

const VERIFIED_TOKEN_CACHE_ENTRIES = 10_000;

/**
 * Remembers tokens that passed every check, so a client reusing its token
 * (the normal case: one token for up to 300 s of calls) skips the ES256
 * verification. Safe because: the key is the exact token string (header,
 * payload and signature), so a hit is a byte-identical token that already
 * passed; the iss/aud/claim checks depend only on start-up configuration; an
 * entry is used only while now < exp (checked on every hit with the same
 * clock); the verifier uses an entry only while the key set is fresh, and the
 * whole cache is cleared whenever a refetch removes or changes a key (a removed
 * key stops working at once); refusals are never cached; and it is
 * bounded (the oldest entry is evicted first).
 */
export class VerifiedTokenCache {
  readonly #entries = new Map<string, AccessTokenClaims>();
  readonly #maxEntries: number;

  constructor(maxEntries = VERIFIED_TOKEN_CACHE_ENTRIES) {
    this.#maxEntries = maxEntries;
  }

  get(token: string, nowS: number): AccessTokenClaims | undefined {
    const claims = this.#entries.get(token);
    if (claims === undefined) return undefined;
    if (nowS < claims.exp) return claims;
    this.#entries.delete(token);
    return undefined;
  }

  put(token: string, claims: AccessTokenClaims): void {
    if (this.#entries.size >= this.#maxEntries && !this.#entries.has(token)) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(token, claims);
  }

  clear(): void {
    this.#entries.clear();
  }

  get size(): number {
    return this.#entries.size;
  }
}
