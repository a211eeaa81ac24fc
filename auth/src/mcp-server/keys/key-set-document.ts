import { isRecord } from '@notegate/kit';

/** The members of a JWK the server reads (RFC 7517 §4, RFC 7518 §6.2); private members are never kept. */
export interface PublicJwk {
  readonly kid: string;
  readonly kty: string;
  readonly crv: string | undefined;
  readonly x: string | undefined;
  readonly y: string | undefined;
  readonly alg: string | undefined;
  readonly use: string | undefined;
}

/** A JWKS document's keys by kid. */
export type KeySet = ReadonlyMap<string, PublicJwk>;

/**
 * Parses a JWKS document (RFC 7517 §5) into keys by kid. Keys without a kid
 * cannot be selected and are skipped; a kid that appears twice is ambiguous
 * and is dropped entirely, so no token can pick between two keys.
 * Throws a plain Error naming the problem when the document is not a JWKS.
 */
export function parseKeySet(document: unknown): KeySet {
  if (!isRecord(document) || !Array.isArray(document.keys)) throw new Error('key set document has no keys array');
  const byKid = new Map<string, PublicJwk>();
  const duplicated = new Set<string>();
  for (const entry of document.keys) {
    if (!isRecord(entry) || typeof entry.kid !== 'string' || typeof entry.kty !== 'string') continue;
    if (byKid.has(entry.kid)) duplicated.add(entry.kid);
    byKid.set(entry.kid, {
      kid: entry.kid,
      kty: entry.kty,
      crv: stringOrUndefined(entry.crv),
      x: stringOrUndefined(entry.x),
      y: stringOrUndefined(entry.y),
      alg: stringOrUndefined(entry.alg),
      use: stringOrUndefined(entry.use),
    });
  }
  for (const kid of duplicated) byKid.delete(kid);
  return byKid;
}

function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export interface ReconciledKeySet {
  readonly keys: KeySet;
  /** A key trusted before was removed or changed: what was verified with it no longer holds. */
  readonly revoked: boolean;
}

/**
 * The fetched set, keeping the previous entry for every kid whose key is unchanged (its imported
 * CryptoKey stays cached with it), and whether a previously trusted key was removed or changed.
 */
export function reconcileKeySet(previous: KeySet | undefined, fetched: KeySet): ReconciledKeySet {
  const keys = new Map<string, PublicJwk>();
  for (const [kid, jwk] of fetched) {
    const known = previous?.get(kid);
    keys.set(kid, known !== undefined && sameKey(known, jwk) ? known : jwk);
  }
  const revoked = [...(previous ?? [])].some(([kid, jwk]) => keys.get(kid) !== jwk);
  return { keys, revoked };
}

function sameKey(a: PublicJwk, b: PublicJwk): boolean {
  return a.kty === b.kty && a.crv === b.crv && a.x === b.x && a.y === b.y && a.alg === b.alg && a.use === b.use;
}
