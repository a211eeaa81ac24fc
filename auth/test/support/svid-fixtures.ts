import type { KeyObject } from 'node:crypto';
import { generateKeyPairSync } from 'node:crypto';
import { CompactSign } from 'jose';
import { MemoryBundleSource } from '../../src/spiffe/bundles/memory-bundle-source.js';

export const TRUST_DOMAIN = 'example.org';
export const SUBJECT = 'spiffe://example.org/agent';
export const AUDIENCE = 'http://127.0.0.1:8080';

export interface TestKey {
  readonly kid: string;
  readonly privateKey: KeyObject;
  readonly publicJwk: Record<string, unknown>;
}

/** A key pair of the given type: `P-256`, `P-384`, `P-521`, `rsa-2048` or `rsa-1024`. */
export function testKey(type: 'P-256' | 'P-384' | 'P-521' | 'rsa-2048' | 'rsa-1024', kid: string): TestKey {
  const { privateKey, publicKey } = type.startsWith('rsa')
    ? generateKeyPairSync('rsa', { modulusLength: Number(type.slice(4)) })
    : generateKeyPairSync('ec', { namedCurve: type });
  return { kid, privateKey, publicJwk: { ...publicKey.export({ format: 'jwk' }), kid } };
}

export function svidClaims(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const nowS = Math.floor(Date.now() / 1000);
  return { sub: SUBJECT, aud: [AUDIENCE], iat: nowS, exp: nowS + 300, jti: 'j1', ...overrides };
}

/** Signs any header and claims (jose only needs `alg`), so tests can build every malformed variant. */
export function signToken(
  key: KeyObject | Uint8Array,
  header: Record<string, unknown> & { alg: string },
  claims: Record<string, unknown> = svidClaims(),
): Promise<string> {
  return new CompactSign(new TextEncoder().encode(JSON.stringify(claims))).setProtectedHeader(header).sign(key);
}

export function signSvid(key: TestKey, alg: string, claims = svidClaims()): Promise<string> {
  return signToken(key.privateKey, { alg, kid: key.kid, typ: 'JWT' }, claims);
}

/** Hand-built token: header and payload JSON, any signature text. */
export function rawToken(header: unknown, claims: unknown, signature = 'c2lnbmF0dXJl'): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part(header)}.${part(claims)}.${signature}`;
}

export async function bundleWith(keys: readonly TestKey[], trustDomain = TRUST_DOMAIN): Promise<MemoryBundleSource> {
  const source = new MemoryBundleSource();
  await source.set(new Map([[trustDomain, { keys: keys.map((key) => key.publicJwk) }]]));
  return source;
}
