import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProtocolError } from '../../../src/errors/protocol-error.js';
import {
  checkAudience,
  checkExpiry,
  checkIssuedAt,
  checkIssuer,
  checkRequiredClaims,
} from '../../../src/mcp-server/bearer/claim-checks.js';
import { extractBearerToken } from '../../../src/mcp-server/bearer/extract-bearer-token.js';
import { checkAlgorithm, checkTokenType } from '../../../src/mcp-server/bearer/header-checks.js';
import { checkToolScope } from '../../../src/mcp-server/bearer/scope-check.js';
import { decodeTokenHeader } from '../../../src/mcp-server/bearer/token-header.js';
import { VerifiedTokenCache } from '../../../src/mcp-server/bearer/verified-token-cache.js';
import type { PublicJwk } from '../../../src/mcp-server/keys/key-set-document.js';
import type { AccessTokenClaims } from '../../../src/oauth/access-token.js';
import { parseScopeParameter } from '../../../src/oauth/scope.js';

function refusedWith(code: string): (err: unknown) => boolean {
  return (err) => {
    assert.ok(err instanceof ProtocolError, String(err));
    assert.equal(err.code, code);
    return true;
  };
}

const RESOURCE = 'http://127.0.0.1:8081/mcp';
const ISSUER = 'http://127.0.0.1:8080/t';

function payload(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    iss: ISSUER,
    sub: 'spiffe://example.org/agent',
    aud: RESOURCE,
    exp: 1_000_300,
    iat: 1_000_000,
    scope: 'notes:read notes:write',
    ...overrides,
  };
}

describe('extractBearerToken', () => {
  it('takes the token of a Bearer header, scheme case-insensitively', () => {
    assert.equal(extractBearerToken('Bearer abc.def.ghi'), 'abc.def.ghi');
    assert.equal(extractBearerToken('bearer abc'), 'abc');
    assert.equal(extractBearerToken('BEARER  a-b_c~d+e/f=='), 'a-b_c~d+e/f==');
  });
  it('treats an absent header, another scheme or empty credentials as no token', () => {
    for (const header of [undefined, '', 'Basic dXNlcg==', 'Bearer', 'Bearer   ']) {
      assert.throws(() => extractBearerToken(header), refusedWith('ERR_TOKEN_MISSING'), String(header));
    }
  });
  it('refuses credentials that are not a b64token', () => {
    for (const header of ['Bearer a b', 'Bearer a"b', 'Bearer =abc', 'Bearer ä']) {
      assert.throws(() => extractBearerToken(header), refusedWith('ERR_TOKEN_MALFORMED'), header);
    }
  });
});

describe('header checks', () => {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  it('decodes only compact JWS with a JSON header of string members', () => {
    assert.deepEqual(decodeTokenHeader(`${encode({ alg: 'ES256', typ: 'at+jwt', kid: 'k' })}.e30.sig`), {
      alg: 'ES256',
      typ: 'at+jwt',
      kid: 'k',
    });
    for (const token of [
      'a.b',
      'a.b.c.d.e',
      '!!!.e30.sig',
      `${encode({ kid: 7 })}.e30.sig`,
      `${encode([1])}.e30.sig`,
    ]) {
      assert.throws(() => decodeTokenHeader(token), refusedWith('ERR_TOKEN_MALFORMED'), token);
    }
  });
  it('accepts typ at+jwt and application/at+jwt in any case (RFC 9068 §4), nothing else', () => {
    for (const typ of ['at+jwt', 'AT+JWT', 'application/at+jwt']) {
      checkTokenType({ typ, alg: 'ES256', kid: 'k' });
    }
    for (const typ of [undefined, 'JWT', 'jwt', 'at+jwt+x', 'application/jwt']) {
      assert.throws(() => checkTokenType({ typ, alg: 'ES256', kid: 'k' }), refusedWith('ERR_TOKEN_TYPE'));
    }
  });
  it('accepts only alg ES256 with a P-256 signing key', () => {
    const key: PublicJwk = { kid: 'k', kty: 'EC', crv: 'P-256', x: 'x', y: 'y', alg: undefined, use: undefined };
    checkAlgorithm({ alg: 'ES256', typ: 'at+jwt', kid: 'k' }, key);
    checkAlgorithm({ alg: 'ES256', typ: 'at+jwt', kid: 'k' }, { ...key, alg: 'ES256', use: 'sig' });
    const refusals: [string | undefined, Partial<PublicJwk>][] = [
      ['RS256', {}],
      ['HS256', {}],
      ['none', {}],
      [undefined, {}],
      ['ES256', { crv: 'P-384' }],
      ['ES256', { kty: 'RSA' }],
      ['ES256', { alg: 'ES384' }],
      ['ES256', { use: 'enc' }],
    ];
    for (const [alg, change] of refusals) {
      assert.throws(
        () => checkAlgorithm({ alg, typ: 'at+jwt', kid: 'k' }, { ...key, ...change }),
        refusedWith('ERR_ALGORITHM'),
        `${alg} ${JSON.stringify(change)}`,
      );
    }
  });
});

describe('claim checks', () => {
  it('requires iss to equal the configured issuer exactly', () => {
    checkIssuer(payload(), ISSUER);
    for (const iss of [undefined, `${ISSUER}/`, ISSUER.toUpperCase(), 7]) {
      assert.throws(() => checkIssuer(payload({ iss }), ISSUER), refusedWith('ERR_ISSUER'));
    }
  });
  it('requires aud to be our resource, alone', () => {
    checkAudience(payload(), RESOURCE);
    checkAudience(payload({ aud: [RESOURCE] }), RESOURCE);
    for (const aud of [undefined, `${RESOURCE}/`, [RESOURCE, 'x'], [], 'http://127.0.0.1:8082/mcp']) {
      assert.throws(() => checkAudience(payload({ aud }), RESOURCE), refusedWith('ERR_AUDIENCE'));
    }
  });
  it('types the required claims and the optional ones when present', () => {
    const claims = checkRequiredClaims(payload({ client_id: 'c', jti: 'j' }));
    assert.deepEqual([...claims.scopes], ['notes:read', 'notes:write']);
    assert.equal(claims.clientId, 'c');
    const broken: Record<string, unknown>[] = [
      { sub: undefined },
      { sub: '' },
      { exp: '1000300' },
      { iat: undefined },
      { scope: undefined },
      { scope: '' },
      { scope: 'a  b' },
      { scope: 'a"b' },
      { client_id: 3 },
      { jti: {} },
      { nbf: 'soon' },
      { aud: [7] },
    ];
    for (const change of broken) {
      assert.throws(() => checkRequiredClaims(payload(change)), refusedWith('ERR_CLAIMS'), JSON.stringify(change));
    }
  });
  it('refuses a token at or after exp, and before nbf', () => {
    const claims = checkRequiredClaims(payload({ nbf: 1_000_010 }));
    checkExpiry(claims, 1_000_010);
    checkExpiry(claims, 1_000_299);
    assert.throws(() => checkExpiry(claims, 1_000_300), refusedWith('ERR_EXPIRED'));
    assert.throws(() => checkExpiry(claims, 1_000_009), refusedWith('ERR_NOT_YET_VALID'));
  });
  it('refuses a token issued beyond the 30 s leeway, expiring before it was issued, or living longer than the maximum', () => {
    const claims = checkRequiredClaims(payload({ iat: 1_000_000, exp: 1_000_900 }));
    checkIssuedAt(claims, 999_970, 900);
    assert.throws(() => checkIssuedAt(claims, 999_969, 900), refusedWith('ERR_NOT_YET_VALID'));
    assert.throws(() => checkIssuedAt(claims, 1_000_000, 899), refusedWith('ERR_LIFETIME'));
    // exp before iat, both within the leeway ahead of now: only the order of the two gives it away.
    const backwards = checkRequiredClaims(payload({ iat: 1_000_020, exp: 1_000_010 }));
    assert.throws(() => checkIssuedAt(backwards, 1_000_000, 900), refusedWith('ERR_LIFETIME'));
    const instant = checkRequiredClaims(payload({ iat: 1_000_010, exp: 1_000_010 }));
    assert.throws(() => checkIssuedAt(instant, 1_000_000, 900), refusedWith('ERR_LIFETIME'));
  });
  it('parses scope lists per RFC 6749 §3.3', () => {
    assert.deepEqual(parseScopeParameter('notes:read'), new Set(['notes:read']));
    assert.equal(parseScopeParameter(' notes:read'), null);
    assert.equal(parseScopeParameter('notes:read '), null);
    assert.equal(parseScopeParameter('notes\\read'), null);
  });
  it('requires the tool scope among the granted scopes (403 naming it)', () => {
    const claims = checkRequiredClaims(payload({ scope: 'notes:read' }));
    checkToolScope(claims, 'notes:read');
    assert.throws(
      () => checkToolScope(claims, 'notes:write'),
      (err) =>
        refusedWith('ERR_INSUFFICIENT_SCOPE')(err) &&
        err instanceof ProtocolError &&
        err.detail === 'needs notes:write',
    );
  });
});

describe('VerifiedTokenCache', () => {
  const claims = (exp: number): AccessTokenClaims => ({ ...checkRequiredClaims(payload()), exp });
  it('returns a remembered token only while now < exp, and forgets it after', () => {
    const cache = new VerifiedTokenCache();
    cache.put('t', claims(100));
    assert.equal(cache.get('t', 99)?.exp, 100);
    assert.equal(cache.get('t', 100), undefined);
    assert.equal(cache.size, 0);
  });
  it('matches the exact token string only', () => {
    const cache = new VerifiedTokenCache();
    cache.put('header.payload.sig', claims(100));
    assert.equal(cache.get('header.payload.sig2', 1), undefined);
    assert.equal(cache.get('header.payload.sig ', 1), undefined);
  });
  it('is bounded and evicts the oldest entry first', () => {
    const cache = new VerifiedTokenCache(2);
    cache.put('a', claims(100));
    cache.put('b', claims(100));
    cache.put('c', claims(100));
    assert.equal(cache.size, 2);
    assert.equal(cache.get('a', 1), undefined);
    assert.ok(cache.get('c', 1));
    cache.clear();
    assert.equal(cache.size, 0);
  });
});
