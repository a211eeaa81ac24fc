import type { CryptoKey, JWK } from 'jose';
import { calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';

/** A freshly generated signing key pair; the private key never leaves the process. */
export interface JwsKey {
  readonly kid: string;
  readonly alg: 'ES256' | 'RS256';
  readonly privateKey: CryptoKey;
  /** kty, key material and kid only. */
  readonly publicJwk: JWK;
}

/** ES256 keys are P-256, RS256 keys RSA-2048. Imported once here, used for every signature after. */
export async function generateJwsKey(alg: 'ES256' | 'RS256'): Promise<JwsKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, alg === 'RS256' ? { modulusLength: 2048 } : {});
  const material = await exportJWK(publicKey);
  // RFC 7638 thumbprint: a stable, collision-free kid derived from the key itself.
  const kid = await calculateJwkThumbprint(material);
  return { kid, alg, privateKey, publicJwk: { ...material, kid } };
}
