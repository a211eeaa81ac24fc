import type { JWK } from 'jose';
import type { Clock } from '../shared/clock.js';
import type { JwsKey } from '../shared/jws-key.js';
import { generateJwsKey } from '../shared/jws-key.js';

export const KEY_TYPES = ['ec-p256', 'rsa-2048'] as const;
export type KeyType = (typeof KEY_TYPES)[number];

/** Its publicJwk is as the Workload API serves it (SPIRE's StandardJWKS): kty, kid and key material only. */
export type SigningKey = JwsKey;

interface HeldKey {
  readonly key: SigningKey;
  /** Latest exp (ms) of an SVID this key signed; a retired key stays published until then. */
  lastExpiryMs: number | null;
}

/**
 * The provider's signing keys: one current key, plus retired keys kept in the bundle until the
 * last SVID each one signed has expired (docs/protocol.md#development-identity-provider-notegate-identity-provider).
 */
export class SigningKeyRing {
  private current: HeldKey;
  private readonly retired: HeldKey[] = [];

  private constructor(
    private readonly keyType: KeyType,
    private readonly clock: Clock,
    first: SigningKey,
  ) {
    this.current = { key: first, lastExpiryMs: null };
  }

  static async create(keyType: KeyType, clock: Clock): Promise<SigningKeyRing> {
    return new SigningKeyRing(keyType, clock, await generateSigningKey(keyType));
  }

  get signingKey(): SigningKey {
    return this.current.key;
  }

  /** Records that the current key signed an SVID expiring at `expiryMs`. */
  noteSigned(expiryMs: number): void {
    this.current.lastExpiryMs = Math.max(this.current.lastExpiryMs ?? 0, expiryMs);
  }

  /** A new current key; the old one is kept only while SVIDs it signed are unexpired. */
  async rotate(): Promise<SigningKey> {
    const next = await generateSigningKey(this.keyType);
    this.retired.push(this.current);
    this.current = { key: next, lastExpiryMs: null };
    this.prune();
    return next;
  }

  /** Drops retired keys whose SVIDs have all expired; true when the bundle changed. */
  prune(): boolean {
    const now = this.clock();
    const before = this.retired.length;
    const keep = this.retired.filter((held) => held.lastExpiryMs !== null && held.lastExpiryMs > now);
    this.retired.splice(0, this.retired.length, ...keep);
    return keep.length !== before;
  }

  /** When the next retired key may go, or null when none is retained. */
  nextRetirementMs(): number | null {
    const times = this.retired.map((held) => held.lastExpiryMs ?? 0);
    return times.length === 0 ? null : Math.min(...times);
  }

  /** The trust domain's JWT bundle: a plain JWKS of the current and retained keys. */
  jwks(): { keys: JWK[] } {
    return { keys: [this.current, ...this.retired].map((held) => held.key.publicJwk) };
  }
}

function generateSigningKey(keyType: KeyType): Promise<SigningKey> {
  return generateJwsKey(keyType === 'ec-p256' ? 'ES256' : 'RS256');
}
