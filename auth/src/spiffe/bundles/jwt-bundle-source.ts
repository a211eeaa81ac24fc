import type { CryptoKey } from 'jose';
import type { SvidAlgorithm } from '../svid/algorithms.js';

/**
 * One public key of a trust domain's JWT bundle, imported once per bundle update: WebCrypto binds a
 * key to one algorithm, so an RSA key holds one CryptoKey per allowed RSA algorithm and an EC key
 * the one its curve allows. An algorithm missing here is an algorithm/key-type mismatch.
 */
export interface BundleKey {
  readonly kid: string;
  readonly kty: 'EC' | 'RSA';
  readonly crv?: string;
  readonly keys: ReadonlyMap<SvidAlgorithm, CryptoKey>;
}

/** The usable JWT keys of one trust domain, by kid. */
export type TrustDomainKeys = ReadonlyMap<string, BundleKey>;

/**
 * What a bundle source knows about one trust domain, synchronously:
 * - `unavailable`: no trustworthy state at all (nothing received yet, file unreadable or invalid,
 *   bundle invalid) — a token service answers 503 and fails closed;
 * - `untrusted`: the state is known but this trust domain is absent or has no JWT keys — 401;
 * - `ok`: the trust domain's keys.
 */
export type KeysResult =
  | { readonly status: 'unavailable'; readonly reason: string }
  | { readonly status: 'untrusted'; readonly reason: string }
  | { readonly status: 'ok'; readonly trustDomain: string; readonly keys: TrustDomainKeys };

/** A source of JWT bundles kept per trust domain (Workload API stream, static file, in-memory). */
export interface JwtBundleSource {
  /** Hot path: no await, no import; a token is only verified against its subject's trust domain. */
  keysFor(trustDomain: string): KeysResult;
  /** Resolves once a state is known; rejects with BundleUnavailableError after `timeoutMs`. */
  ready(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

export class BundleUnavailableError extends Error {
  readonly code = 'ERR_BUNDLE_UNAVAILABLE';

  constructor(reason: string) {
    super(`no JWT bundle available: ${reason}`);
    this.name = 'BundleUnavailableError';
  }
}
