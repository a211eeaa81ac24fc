import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatScope, parseScopeParameter } from '../../src/oauth/scope.js';
import { authorizationServerMetadataUrl, protectedResourceMetadataUrl } from '../../src/oauth/well-known.js';

describe('authorizationServerMetadataUrl (RFC 8414 §3)', () => {
  const cases: ReadonlyArray<readonly [string, string]> = [
    ['http://127.0.0.1:8080', 'http://127.0.0.1:8080/.well-known/oauth-authorization-server'],
    ['http://127.0.0.1:8080/', 'http://127.0.0.1:8080/.well-known/oauth-authorization-server'],
    ['https://as.example/t1', 'https://as.example/.well-known/oauth-authorization-server/t1'],
    ['https://as.example/t1/', 'https://as.example/.well-known/oauth-authorization-server/t1'],
    ['https://as.example:8443/a/b', 'https://as.example:8443/.well-known/oauth-authorization-server/a/b'],
  ];
  for (const [issuer, expected] of cases) {
    it(`puts the metadata of ${issuer} at ${expected}`, () => {
      assert.equal(authorizationServerMetadataUrl(issuer).href, expected);
    });
  }
});

describe('protectedResourceMetadataUrl (RFC 9728 §3)', () => {
  it('inserts the suffix before the path and keeps a query after it', () => {
    assert.equal(
      protectedResourceMetadataUrl('http://127.0.0.1:8081/mcp').href,
      'http://127.0.0.1:8081/.well-known/oauth-protected-resource/mcp',
    );
    assert.equal(
      protectedResourceMetadataUrl('https://r.example/api/?v=1').href,
      'https://r.example/.well-known/oauth-protected-resource/api?v=1',
    );
  });
});

describe('scope parameter (RFC 6749 §3.3)', () => {
  it('splits on single spaces and refuses anything else', () => {
    assert.deepEqual([...(parseScopeParameter('b a b') ?? [])], ['b', 'a']);
    for (const bad of ['', ' a', 'a ', 'a  b', 'a\tb', 'a"b', 'a\\b', 'é']) {
      assert.equal(parseScopeParameter(bad), null, JSON.stringify(bad));
    }
    assert.deepEqual([...(parseScopeParameter('!#[]~') ?? [])], ['!#[]~']);
  });

  it('formats granted scopes sorted and single-spaced', () => {
    assert.equal(formatScope(new Set(['notes:write', 'notes:read'])), 'notes:read notes:write');
  });
});
