import { errorMessage, isRecord } from '@notegate/kit';
import type { CryptoKey, JWK } from 'jose';
import { importJWK } from 'jose';
import type { SvidAlgorithm } from '../svid/algorithms.js';
import { algorithmsForKey } from '../svid/algorithms.js';
import type { BundleKey, TrustDomainKeys } from './jwt-bundle-source.js';

/** A JWT bundle document that cannot be trusted at all (not JSON, no `keys`, a duplicate kid, bad key material). */
export class InvalidBundleError extends Error {
  readonly code = 'ERR_INVALID_BUNDLE';

  constructor(message: string) {
    super(message);
    this.name = 'InvalidBundleError';
  }
}

export interface ImportedBundle {
  readonly keys: TrustDomainKeys;
  /** SPIFFE bundle §4.1 `spiffe_sequence`, when present. */
  readonly sequence?: number;
  /** SPIFFE bundle §4.1 `spiffe_refresh_hint` in seconds, when present. */
  readonly refreshHintS?: number;
  /** Keys skipped on purpose (other `use`, no kid, unsupported type), for logs. */
  readonly ignored: readonly string[];
}

/** Ours: no SVID algorithm accepts a smaller RSA modulus (jose refuses it at verify time anyway). */
const MIN_RSA_MODULUS_BITS = 2048;

export async function importJwtBundleBytes(bytes: Uint8Array | string): Promise<ImportedBundle> {
  let document: unknown;
  try {
    document = JSON.parse(typeof bytes === 'string' ? bytes : Buffer.from(bytes).toString('utf8'));
  } catch {
    throw new InvalidBundleError('bundle is not JSON');
  }
  return importJwtBundle(document);
}

/**
 * Imports a JWK Set in either shape: a SPIFFE bundle (SPIFFE_Trust_Domain_and_Bundle §4: keys carry
 * `use`, only `jwt-svid` keys count, `spiffe_*` members allowed) or a plain JWKS as the Workload API
 * serves it (no `use`; JWT-SVID §6). Every key is imported here, once, for each algorithm it may verify.
 */
export async function importJwtBundle(document: unknown): Promise<ImportedBundle> {
  if (!isRecord(document) || !Array.isArray(document.keys)) {
    throw new InvalidBundleError('bundle is not a JWK Set (no "keys" array)');
  }
  const sequence = optionalCount(document, 'spiffe_sequence');
  const refreshHintS = optionalCount(document, 'spiffe_refresh_hint');
  const spiffeFormat =
    sequence !== undefined || refreshHintS !== undefined || document.keys.some((k) => isRecord(k) && 'use' in k);
  const keys = new Map<string, BundleKey>();
  const ignored: string[] = [];
  for (const [index, jwk] of document.keys.entries()) {
    const skip = skipReason(jwk, spiffeFormat);
    if (skip !== null) {
      ignored.push(`keys[${index}]: ${skip}`);
      continue;
    }
    const key = await importKey(jwk, index);
    if (key === null) ignored.push(`keys[${index}]: RSA modulus under ${MIN_RSA_MODULUS_BITS} bits`);
    else if (keys.has(key.kid)) throw new InvalidBundleError(`duplicate kid ${JSON.stringify(key.kid)}`);
    else keys.set(key.kid, key);
  }
  return {
    keys,
    ignored,
    ...(sequence === undefined ? {} : { sequence }),
    ...(refreshHintS === undefined ? {} : { refreshHintS }),
  };
}

function optionalCount(document: Record<string, unknown>, member: string): number | undefined {
  const value = document[member];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new InvalidBundleError(`${member} is not a non-negative integer`);
  }
  return value;
}

function skipReason(jwk: unknown, spiffeFormat: boolean): string | null {
  if (!isRecord(jwk)) return 'not a JSON object';
  // SPIFFE bundle §4.2: a SPIFFE bundle key without use "jwt-svid" is for another SVID type; ignore it.
  if (spiffeFormat && jwk.use !== 'jwt-svid') return `use ${JSON.stringify(jwk.use)} is not jwt-svid`;
  if (typeof jwk.kid !== 'string' || jwk.kid === '') return 'no kid';
  if (typeof jwk.kty !== 'string') return 'no kty';
  const crv = typeof jwk.crv === 'string' ? jwk.crv : undefined;
  const usable = algorithmsFor(jwk, algorithmsForKey(jwk.kty, crv));
  if (usable.length === 0) return `kty ${jwk.kty}${crv ? `/${crv}` : ''} cannot verify an allowed algorithm`;
  return null;
}

/** RFC 7517 §4.4: a JWK `alg` restricts the key to that algorithm. */
function algorithmsFor(jwk: Record<string, unknown>, byType: readonly SvidAlgorithm[]): readonly SvidAlgorithm[] {
  return jwk.alg === undefined ? byType : byType.filter((alg) => alg === jwk.alg);
}

async function importKey(jwk: Record<string, unknown>, index: number): Promise<BundleKey | null> {
  const kty = jwk.kty === 'RSA' ? 'RSA' : 'EC';
  const crv = typeof jwk.crv === 'string' ? jwk.crv : undefined;
  const kid = String(jwk.kid);
  const keys = new Map<SvidAlgorithm, CryptoKey>();
  for (const alg of algorithmsFor(jwk, algorithmsForKey(kty, crv))) {
    let key: CryptoKey | Uint8Array;
    try {
      key = await importJWK(publicMembers(jwk), alg);
    } catch (err) {
      throw new InvalidBundleError(`keys[${index}] (kid ${kid}): ${errorMessage(err)}`);
    }
    if (key instanceof Uint8Array) throw new InvalidBundleError(`keys[${index}] (kid ${kid}) is not a public key`);
    if (kty === 'RSA' && modulusBits(key) < MIN_RSA_MODULUS_BITS) return null;
    keys.set(alg, key);
  }
  return crv === undefined ? { kid, kty, keys } : { kid, kty, crv, keys };
}

/** Only the public members go to importJWK, so a JWK that leaks `d` still imports as a public key. */
function publicMembers(jwk: Record<string, unknown>): JWK {
  const pick = (name: string) => (typeof jwk[name] === 'string' ? { [name]: jwk[name] } : {});
  return { ...pick('kty'), ...pick('crv'), ...pick('x'), ...pick('y'), ...pick('n'), ...pick('e') };
}

function modulusBits(key: CryptoKey): number {
  const { algorithm } = key;
  return 'modulusLength' in algorithm && typeof algorithm.modulusLength === 'number' ? algorithm.modulusLength : 0;
}
