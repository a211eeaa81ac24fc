import type { JsonWebKey, KeyObject } from 'node:crypto';
import { createECDH, createPrivateKey } from 'node:crypto';
import { errorMessage } from '@notegate/kit';
import { z } from 'zod';
import { rejectDuplicates } from '../../shared/config-file.js';
import type { AccessTokenSigningKey, SigningKeySet } from './signing-key.js';
import { accessTokenSigningKey, signingKeySet } from './signing-key.js';

const BASE64URL = /^[A-Za-z0-9_-]+$/;
/** RFC 7518 §6.2.1.2, §6.2.2.1: a P-256 coordinate or private key is exactly 32 bytes, base64url-encoded. */
const coordinate = z
  .string()
  .regex(BASE64URL, 'must be base64url without padding')
  .refine((value) => Buffer.from(value, 'base64url').length === 32, 'must encode exactly 32 bytes');

/**
 * One private key of the file (RFC 7517 §4, RFC 7518 §6.2.2). Members we do not use are ignored,
 * as RFC 7517 §4 asks; the ones we use must say ES256 signing with P-256.
 */
const PRIVATE_KEY = z.object({
  kty: z.literal('EC', { error: 'must be "EC"' }),
  crv: z.literal('P-256', { error: 'must be "P-256"' }),
  x: coordinate,
  y: coordinate,
  d: coordinate,
  kid: z
    .string({ error: 'is required: tokens name their key by kid' })
    .regex(/^[\x21-\x7e]{1,256}$/, 'must be 1 to 256 printable ASCII characters without spaces'),
  alg: z.literal('ES256', { error: 'must be "ES256" when present' }).optional(),
  use: z.literal('sig', { error: 'must be "sig" when present' }).optional(),
});

const KEY_FILE = z.object({
  keys: z.array(z.unknown(), { error: 'must be a list of keys' }).min(1, 'must hold at least one key'),
});

/** A private key of the file, as written back by `notegate authz keygen`. */
export type PrivateKeyEntry = z.infer<typeof PRIVATE_KEY>;

/** The entries of a key file, checked one by one; errors name the entry (`keys[1].kid: …`). */
export function parseKeyFileEntries(text: string): [PrivateKeyEntry, ...PrivateKeyEntry[]] {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    // V8's message quotes the text around the fault, and that text is private key material
    // (docs/security.md#shared-capacity-secrets-and-operators-tools): no part of it goes into a message.
    throw new Error('not JSON (the parser message is withheld: it would quote the private keys)');
  }
  const file = KEY_FILE.safeParse(document);
  if (!file.success) throw new Error(describeIssue(file.error.issues[0], 'a JWK Set {"keys": [...]}'));
  const entries = file.data.keys.map((entry, index) => {
    const parsed = PRIVATE_KEY.safeParse(entry);
    if (!parsed.success) throw new Error(describeIssue(parsed.error.issues[0], 'a private P-256 JWK', index));
    return parsed.data;
  });
  rejectDuplicates(
    entries.map((entry) => entry.kid),
    (index) => `keys[${index}].kid`,
    (where, why) => new Error(`${where}: ${why}`),
  );
  return entries as [PrivateKeyEntry, ...PrivateKeyEntry[]];
}

/**
 * The `--signing-keys` file (docs/protocol.md#signing-keys): a JWK Set of private P-256 keys, each
 * with a kid; the first signs. Throws an Error naming the entry and what is wrong with it.
 */
export async function parseSigningKeyFile(text: string): Promise<SigningKeySet> {
  const keys = await Promise.all(parseKeyFileEntries(text).map((entry, index) => importEntry(entry, index)));
  return signingKeySet(keys as [AccessTokenSigningKey, ...AccessTokenSigningKey[]]);
}

function importEntry(entry: PrivateKeyEntry, index: number): Promise<AccessTokenSigningKey> {
  // node:crypto (and WebCrypto with it) takes x and y as given: derive them from d, or a file put
  // together wrongly would publish a key that verifies none of the tokens signed with it.
  let point: Buffer;
  let privateKey: KeyObject;
  try {
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(Buffer.from(entry.d, 'base64url'));
    point = ecdh.getPublicKey();
    privateKey = createPrivateKey({ key: entry as JsonWebKey, format: 'jwk' });
  } catch (err) {
    throw new Error(`keys[${index}]: not a usable P-256 private key: ${errorMessage(err)}`);
  }
  // An uncompressed point: 0x04, then X and Y of 32 bytes each (SEC 1 §2.3.3).
  if (point.subarray(1, 33).toString('base64url') !== entry.x || point.subarray(33).toString('base64url') !== entry.y) {
    throw new Error(`keys[${index}]: x and y are not the public key of d`);
  }
  return accessTokenSigningKey(privateKey, entry.kid);
}

/** The private JWK of a key, for writing a key file. */
export function privateKeyEntry(privateKey: KeyObject, kid: string): PrivateKeyEntry {
  const { x, y, d } = privateKey.export({ format: 'jwk' });
  if (x === undefined || y === undefined || d === undefined) throw new Error('not a private EC key');
  return { kty: 'EC', crv: 'P-256', x, y, d, kid, alg: 'ES256', use: 'sig' };
}

function describeIssue(issue: z.core.$ZodIssue | undefined, expected: string, index?: number): string {
  const head = index === undefined ? '' : `keys[${index}]`;
  if (issue === undefined) return `${head || 'file'}: must be ${expected}`;
  const path = issue.path.map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`)).join('');
  const where = `${head}${path}`.replace(/^\./, '');
  const what = issue.code === 'invalid_type' && issue.path.length === 0 ? `must be ${expected}` : issue.message;
  return `${where || 'file'}: ${what}`;
}
