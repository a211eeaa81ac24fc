import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { MemoryBundleSource } from '../../../src/spiffe/bundles/memory-bundle-source.js';
import { MemoryBundleSource as EmptySource } from '../../../src/spiffe/bundles/memory-bundle-source.js';
import { SVID_ALGORITHMS } from '../../../src/spiffe/svid/algorithms.js';
import { decodeSvid, MAX_SVID_BYTES } from '../../../src/spiffe/svid/decode.js';
import type { SvidRule } from '../../../src/spiffe/svid/svid-error.js';
import { SvidError } from '../../../src/spiffe/svid/svid-error.js';
import { verifyJwtSvid } from '../../../src/spiffe/svid/verify-jwt-svid.js';
import type { TestKey } from '../../support/svid-fixtures.js';
import {
  AUDIENCE,
  bundleWith,
  rawToken,
  signSvid,
  signToken,
  svidClaims,
  TRUST_DOMAIN,
  testKey,
} from '../../support/svid-fixtures.js';

async function refusedBy(rule: SvidRule, promise: Promise<unknown>): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof SvidError, `expected SvidError, got ${String(err)}`);
    assert.equal(err.rule, rule, err.message);
    return true;
  });
}

describe('verifyJwtSvid', () => {
  const keys: Record<string, TestKey> = {};
  let bundles: MemoryBundleSource;
  const verify = (token: string, options: { trustDomain?: string; audience?: string } = {}) =>
    verifyJwtSvid(token, { bundles, trustDomain: TRUST_DOMAIN, audience: AUDIENCE, ...options });

  before(async () => {
    keys.p256 = testKey('P-256', 'k-p256');
    keys.p384 = testKey('P-384', 'k-p384');
    keys.p521 = testKey('P-521', 'k-p521');
    keys.rsa = testKey('rsa-2048', 'k-rsa');
    bundles = await bundleWith(Object.values(keys));
  });
  const keyFor = (alg: string): TestKey => {
    const name = alg.startsWith('ES') ? { ES256: 'p256', ES384: 'p384', ES512: 'p521' }[alg] : 'rsa';
    const key = name === undefined ? undefined : keys[name];
    assert.ok(key);
    return key;
  };

  for (const alg of SVID_ALGORITHMS) {
    it(`accepts ${alg} signed by a key of the matching type`, async () => {
      const verified = await verify(await signSvid(keyFor(alg), alg));
      assert.equal(verified.header.alg, alg);
      assert.equal(verified.subject.id, 'spiffe://example.org/agent');
      assert.equal(verified.subject.trustDomain, TRUST_DOMAIN);
    });
  }

  it('refuses alg none', async () => {
    await refusedBy('algorithm', verify(rawToken({ alg: 'none', kid: 'k-p256' }, svidClaims())));
  });
  it('refuses HMAC (HS256), even with the public key bytes as the secret', async () => {
    const secret = new TextEncoder().encode(JSON.stringify(keys.p256?.publicJwk));
    await refusedBy('algorithm', verify(await signToken(secret, { alg: 'HS256', kid: 'k-p256' })));
  });
  it('refuses PS512, which the allowlist leaves out', async () => {
    await refusedBy('algorithm', verify(await signSvid(keyFor('PS256'), 'PS512')));
  });
  it('refuses RS256 whose kid names an EC key', async () => {
    const token = await signToken(keyFor('RS256').privateKey, { alg: 'RS256', kid: 'k-p256' });
    await refusedBy('algorithm', verify(token));
  });
  it('refuses ES384 whose kid names a P-256 key', async () => {
    const token = await signToken(keyFor('ES384').privateKey, { alg: 'ES384', kid: 'k-p256' });
    await refusedBy('algorithm', verify(token));
  });
  it('refuses ES256 whose kid names an RSA key', async () => {
    const token = await signToken(keyFor('ES256').privateKey, { alg: 'ES256', kid: 'k-rsa' });
    await refusedBy('algorithm', verify(token));
  });

  it('accepts typ JWT, JOSE and no typ; refuses any other typ', async () => {
    const key = keyFor('ES256');
    for (const typ of ['JWT', 'JOSE', undefined]) {
      const header = typ === undefined ? { alg: 'ES256', kid: key.kid } : { alg: 'ES256', kid: key.kid, typ };
      await verify(await signToken(key.privateKey, header));
    }
    await refusedBy('typ', verify(await signToken(key.privateKey, { alg: 'ES256', kid: key.kid, typ: 'at+jwt' })));
  });
  it('refuses header parameters other than alg, kid and typ (JWT-SVID §2)', async () => {
    const key = keyFor('ES256');
    for (const extra of [{ jku: 'http://evil/jwks' }, { x5u: 'http://evil' }, { cty: 'JWT' }]) {
      await refusedBy('header', verify(await signToken(key.privateKey, { alg: 'ES256', kid: key.kid, ...extra })));
    }
  });
  it('refuses a token without kid', async () => {
    await refusedBy('kid', verify(await signToken(keyFor('ES256').privateKey, { alg: 'ES256' })));
  });
  it('refuses a kid that is not in the bundle', async () => {
    const stranger = testKey('P-256', 'k-unknown');
    await refusedBy('kid', verify(await signSvid(stranger, 'ES256')));
  });

  it('refuses a subject from another trust domain before looking up keys', async () => {
    const token = await signSvid(keyFor('ES256'), 'ES256', svidClaims({ sub: 'spiffe://other.org/agent' }));
    await refusedBy('trust_domain', verify(token));
  });
  it('verifies against the subject trust domain only: a foreign domain absent from the bundle is untrusted', async () => {
    const token = await signSvid(keyFor('ES256'), 'ES256', svidClaims({ sub: 'spiffe://other.org/agent' }));
    await refusedBy('untrusted', verifyJwtSvid(token, { bundles, audience: AUDIENCE }));
  });
  it('never verifies with another trust domain bundle, even one holding the signing key', async () => {
    const otherDomain = await bundleWith([keyFor('ES256')], 'other.org');
    await refusedBy('untrusted', verifyJwtSvid(await signSvid(keyFor('ES256'), 'ES256'), { bundles: otherDomain }));
  });
  it('refuses a missing or malformed sub', async () => {
    await refusedBy('subject', verify(await signSvid(keyFor('ES256'), 'ES256', svidClaims({ sub: undefined }))));
    const bad = svidClaims({ sub: 'spiffe://example.org/a/../b' });
    await refusedBy('subject', verify(await signSvid(keyFor('ES256'), 'ES256', bad)));
  });
  it('answers bundle_unavailable when no bundle state is known', async () => {
    const token = await signSvid(keyFor('ES256'), 'ES256');
    await refusedBy('bundle_unavailable', verifyJwtSvid(token, { bundles: new EmptySource() }));
  });

  it('refuses a tampered signature and a tampered payload', async () => {
    const token = await signSvid(keyFor('ES256'), 'ES256');
    const [header, payload, signature] = token.split('.');
    const flipped = `${signature?.[0] === 'A' ? 'B' : 'A'}${signature?.slice(1)}`;
    await refusedBy('signature', verify(`${header}.${payload}.${flipped}`));
    const forged = Buffer.from(JSON.stringify(svidClaims({ sub: 'spiffe://example.org/admin' }))).toString('base64url');
    await refusedBy('signature', verify(`${header}.${forged}.${signature}`));
  });

  it('refuses an expired SVID beyond the leeway and an audience it was not minted for', async () => {
    const nowS = Math.floor(Date.now() / 1000);
    const expired = svidClaims({ iat: nowS - 400, exp: nowS - 31 });
    await refusedBy('expired', verify(await signSvid(keyFor('ES256'), 'ES256', expired)));
    await refusedBy('audience', verify(await signSvid(keyFor('ES256'), 'ES256'), { audience: 'http://other' }));
  });
});

describe('decodeSvid', () => {
  const malformed: ReadonlyArray<readonly [string, string]> = [
    ['two parts', 'eyJhbGciOiJFUzI1NiJ9.e30'],
    ['four parts', 'a.b.c.d'],
    ['an empty signature', `${rawToken({ alg: 'ES256' }, {}, '')}`],
    ['a non-base64url part', 'eyJhbGciOiJFUzI1NiJ9.e30=.c2ln'],
    ['a non-JSON header', `${Buffer.from('not json').toString('base64url')}.e30.c2ln`],
    ['a header that is an array', rawToken(['alg'], {})],
    ['a payload that is a string', rawToken({ alg: 'ES256' }, 'claims')],
    ['a token over the size limit', rawToken({ alg: 'ES256' }, { pad: 'x'.repeat(MAX_SVID_BYTES) })],
    ['a payload nested 17 levels deep', rawToken({ alg: 'ES256' }, { a: nested(16) })],
  ];
  for (const [what, token] of malformed) {
    it(`refuses ${what} as malformed`, () => {
      assert.throws(
        () => decodeSvid(token),
        (err: unknown) => err instanceof SvidError && err.rule === 'malformed',
      );
    });
  }
  it('refuses a payload nested thousands of levels deep within the size limit by its depth', () => {
    const deep = `${Buffer.from('{"alg":"ES256"}').toString('base64url')}.${Buffer.from(`{"a":${'['.repeat(6000)}${']'.repeat(6000)}}`).toString('base64url')}.c2ln`;
    assert.ok(deep.length <= MAX_SVID_BYTES);
    assert.throws(() => decodeSvid(deep), { rule: 'malformed', message: /payload is nested deeper than 16 levels/ });
  });
  it('accepts 16 levels of nesting', () => {
    assert.deepEqual(Object.keys(decodeSvid(rawToken({ alg: 'ES256' }, { a: nested(14) })).claims), ['a']);
  });
});

/** An array nested `levels` deep: nested(0) is []. */
function nested(levels: number): unknown {
  let value: unknown = [];
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}
