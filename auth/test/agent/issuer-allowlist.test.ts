import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '@notegate/kit/cli';
import { IssuerAllowlist, normalizeIdentifier, sameIdentifier } from '../../src/agent/issuer-allowlist.js';

describe('issuer identifier normalization', () => {
  const normalized: [string, string][] = [
    ['https://as.example.org', 'https://as.example.org/'],
    ['https://as.example.org/', 'https://as.example.org/'],
    ['HTTPS://AS.Example.ORG/Tenant', 'https://as.example.org/Tenant'],
    ['https://as.example.org:443/t', 'https://as.example.org/t'],
    ['http://as.example.org:80/t', 'http://as.example.org/t'],
    ['http://as.example.org:443/t', 'http://as.example.org:443/t'],
    ['https://as.example.org:80/t', 'https://as.example.org:80/t'],
    ['http://127.0.0.1:8080', 'http://127.0.0.1:8080/'],
    ['http://127.0.0.1:08080/t', 'http://127.0.0.1:8080/t'],
    ['http://as.example.org:/t', 'http://as.example.org/t'],
    ['http://[::1]:8080/t', 'http://[::1]:8080/t'],
    ['http://[::1]:80/t', 'http://[::1]/t'],
    ['https://as.example.org/t/', 'https://as.example.org/t/'],
    ['https://as.example.org/a/../t', 'https://as.example.org/a/../t'],
    ['https://as.example.org/%7Et', 'https://as.example.org/%7Et'],
  ];
  for (const [input, expected] of normalized) {
    it(`normalizes ${input} to ${expected}`, () => {
      assert.deepEqual(normalizeIdentifier(input), { ok: true, value: expected });
    });
  }

  const unusable: [string, RegExp][] = [
    ['https://user@as.example.org/t', /user information/],
    ['https://user:pw@as.example.org/t', /user information/],
    ['https://as.example.org/t?tenant=1', /query/],
    ['https://as.example.org/t?', /query/],
    ['https://as.example.org/t#frag', /fragment/],
    ['https://as.example.org/t#', /fragment/],
    ['ftp://as.example.org/t', /http or https/],
    ['as.example.org/t', /absolute URI/],
    ['https:///t', /host/],
    ['https://as.example.org:99999/t', /port/],
    ['https://as.example.org:8a/t', /host/],
    ['https://as.example.org/t t', /ASCII/],
    ['https://bücher.example/t', /ASCII/],
    ['', /ASCII/],
  ];
  for (const [input, problem] of unusable) {
    it(`refuses ${JSON.stringify(input)} (${problem.source})`, () => {
      const result = normalizeIdentifier(input);
      assert.equal(result.ok, false);
      assert.match(result.ok ? '' : result.problem, problem);
    });
  }
});

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

  it('compares resources by the same rules: case and default port, never trailing slash or prefix', () => {
    assert.equal(sameIdentifier('HTTP://127.0.0.1:80/mcp', 'http://127.0.0.1/mcp'), true);
    assert.equal(sameIdentifier('http://127.0.0.1:8081/mcp/', 'http://127.0.0.1:8081/mcp'), false);
    assert.equal(sameIdentifier('http://127.0.0.1:8081/mcp/x', 'http://127.0.0.1:8081/mcp'), false);
    assert.equal(sameIdentifier('http://127.0.0.1:8081/mcp?x', 'http://127.0.0.1:8081/mcp?x'), false);
  });
});
