import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '@notegate/kit/cli';
import { IssuerAllowlist } from '../../src/agent/issuer-allowlist.js';

describe('the --trusted-issuer allowlist', () => {
  const allowlist = IssuerAllowlist.parse(
    ['https://as.example.org/t', 'http://127.0.0.1:8080', 'https://Other.Example:443'],
    '--trusted-issuer',
  );

  const matches: [string, boolean][] = [
    ['https://as.example.org/t', true],
    ['HTTPS://AS.EXAMPLE.ORG/t', true],
    ['https://as.example.org:443/t', true],
    ['https://as.example.org/T', false],
    ['https://as.example.org/t/', false],
    ['https://as.example.org/', false],
    ['https://as.example.org', false],
    ['https://as.example.org/t/sub', false],
    ['https://as.example.org/tt', false],
    ['https://as.example.org.evil.example/t', false],
    ['https://evil.example/https://as.example.org/t', false],
    ['https://as.example.org@evil.example/t', false],
    ['https://evil.example@as.example.org/t', false],
    ['https://as.example.org/t?x=1', false],
    ['https://as.example.org/t#x', false],
    ['http://as.example.org/t', false],
    ['https://as.example.org:8443/t', false],
    ['http://127.0.0.1:8080', true],
    ['http://127.0.0.1:8080/', true],
    ['http://127.0.0.1:8081', false],
    ['http://localhost:8080', false],
    ['https://other.example', true],
    ['https://other.example/', true],
  ];
  for (const [issuer, trusted] of matches) {
    it(`${trusted ? 'trusts' : 'does not trust'} ${issuer}`, () => {
      assert.equal(allowlist.isTrusted(issuer), trusted);
    });
  }

  it('takes the first advertised issuer that is trusted, in the order of the metadata', () => {
    const advertised = ['https://evil.example', 'http://127.0.0.1:8080/', 'https://as.example.org/t'];
    assert.equal(allowlist.firstTrusted(advertised), 'http://127.0.0.1:8080/');
    assert.equal(allowlist.firstTrusted(['https://evil.example', 'https://as.example.org/t/']), undefined);
    assert.equal(allowlist.firstTrusted([]), undefined);
  });

  it('refuses an empty allowlist and entries that are not usable issuers, naming the flag', () => {
    assert.throws(() => IssuerAllowlist.parse([], '--trusted-issuer'), /--trusted-issuer: at least one/);
    assert.throws(
      () => IssuerAllowlist.parse(['https://as.example.org/t?x=1'], '--trusted-issuer'),
      (err) =>
        err instanceof UsageError &&
        /--trusted-issuer: 'https:\/\/as.example.org\/t\?x=1' must not have a query/.test(err.message),
    );
  });
});
