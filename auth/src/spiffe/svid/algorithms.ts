/**
 * The JWT-SVID algorithm allowlist of docs/protocol.md#jwt-svid-details: JWT-SVID §2.1's list minus
 * PS512, which is refused. No `none`, no HMAC.
 */
export const SVID_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256', 'PS384'] as const;
export type SvidAlgorithm = (typeof SVID_ALGORITHMS)[number];

export function isSvidAlgorithm(value: unknown): value is SvidAlgorithm {
  return typeof value === 'string' && (SVID_ALGORITHMS as readonly string[]).includes(value);
}

const RSA_ALGORITHMS: readonly SvidAlgorithm[] = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384'];
// RFC 7518 §3.4: each ECDSA algorithm is bound to exactly one curve.
const EC_ALGORITHM_BY_CURVE: Readonly<Record<string, SvidAlgorithm>> = {
  'P-256': 'ES256',
  'P-384': 'ES384',
  'P-521': 'ES512',
};

/** Allowed algorithms a public key of this type can verify; empty when the key type is not usable for SVIDs. */
export function algorithmsForKey(kty: string, crv: string | undefined): readonly SvidAlgorithm[] {
  if (kty === 'RSA') return RSA_ALGORITHMS;
  if (kty === 'EC' && crv !== undefined) {
    const alg = EC_ALGORITHM_BY_CURVE[crv];
    return alg ? [alg] : [];
  }
  return [];
}
