import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '@notegate/kit/cli';
import {
  issuerForm,
  requireIssuerForm,
  requireResourceForm,
  resourceForm,
  sameIssuer,
  sameResource,
} from '../../src/oauth/identifier.js';

// docs/protocol.md#identifiers: each spelling, its issuer form and its resource form.
const forms: [spelling: string, issuer: string, resource: string][] = [
  ['https://as.example.org', 'https://as.example.org/', 'https://as.example.org'],
  ['https://as.example.org/', 'https://as.example.org/', 'https://as.example.org'],
  ['HTTPS://AS.Example.ORG/Tenant', 'https://as.example.org/Tenant', 'https://as.example.org/Tenant'],
  ['https://as.example.org:443/t', 'https://as.example.org/t', 'https://as.example.org/t'],
  ['http://as.example.org:80/t', 'http://as.example.org/t', 'http://as.example.org/t'],
  ['http://as.example.org:443/t', 'http://as.example.org:443/t', 'http://as.example.org:443/t'],
  ['https://as.example.org:80/t', 'https://as.example.org:80/t', 'https://as.example.org:80/t'],
  ['http://127.0.0.1:8080', 'http://127.0.0.1:8080/', 'http://127.0.0.1:8080'],
  ['http://127.0.0.1:08080/t', 'http://127.0.0.1:8080/t', 'http://127.0.0.1:8080/t'],
  ['http://as.example.org:/t', 'http://as.example.org/t', 'http://as.example.org/t'],
  ['http://[::1]:8080/t', 'http://[::1]:8080/t', 'http://[::1]:8080/t'],
  ['http://[::1]:80/t', 'http://[::1]/t', 'http://[::1]/t'],
  ['https://as.example.org/t/', 'https://as.example.org/t/', 'https://as.example.org/t'],
  ['https://Notes.Example:443/mcp/', 'https://notes.example/mcp/', 'https://notes.example/mcp'],
  ['http://LOCALHOST:8081/mcp/', 'http://localhost:8081/mcp/', 'http://localhost:8081/mcp'],
  ['https://as.example.org/a/../t', 'https://as.example.org/a/../t', 'https://as.example.org/a/../t'],
  ['https://as.example.org/%7Et', 'https://as.example.org/%7Et', 'https://as.example.org/%7Et'],
  ['https://as.example.org/MCP', 'https://as.example.org/MCP', 'https://as.example.org/MCP'],
];

describe('the issuer form and the resource form', () => {
  for (const [spelling, issuer, resource] of forms) {
    it(`${spelling}: issuer ${issuer}, resource ${resource}`, () => {
      assert.deepEqual(issuerForm(spelling), { ok: true, value: issuer });
      assert.deepEqual(resourceForm(spelling), { ok: true, value: resource });
      assert.deepEqual(issuerForm(issuer), { ok: true, value: issuer }, 'the issuer form is its own form');
      assert.deepEqual(resourceForm(resource), { ok: true, value: resource }, 'the resource form is its own form');
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
    ['/mcp', /absolute URI/],
    ['https:///t', /host/],
    ['https://as.example.org:99999/t', /port/],
    ['https://as.example.org:8a/t', /host/],
    ['https://as.example.org/t t', /ASCII/],
    ['https://bücher.example/t', /ASCII/],
    ['', /ASCII/],
  ];
  for (const [input, problem] of unusable) {
    it(`refuses ${JSON.stringify(input)} in both forms (${problem.source})`, () => {
      for (const form of [issuerForm(input), resourceForm(input)]) {
        assert.equal(form.ok, false);
        assert.match(form.ok ? '' : form.problem, problem);
      }
    });
  }

  it('refuses a resource whose path ends in two slashes, which is still an issuer', () => {
    assert.deepEqual(issuerForm('https://as.example.org/mcp//'), { ok: true, value: 'https://as.example.org/mcp//' });
    assert.deepEqual(resourceForm('https://as.example.org/mcp//'), {
      ok: false,
      problem: "must not end with more than one '/'",
    });
    assert.equal(resourceForm('https://as.example.org//').ok, false);
  });
});

describe('the same issuer, the same resource', () => {
  const pairs: [a: string, b: string, sameAsIssuer: boolean, sameAsResource: boolean][] = [
    ['https://Notes.Example:443/mcp/', 'https://notes.example/mcp', false, true],
    ['HTTP://127.0.0.1:80/mcp', 'http://127.0.0.1/mcp', true, true],
    ['http://127.0.0.1:8080', 'http://127.0.0.1:8080/', true, true],
    ['http://127.0.0.1:8081/mcp/', 'http://127.0.0.1:8081/mcp', false, true],
    ['https://as.example.org/t', 'https://as.example.org/t/', false, true],
    ['https://as.example.org/t', 'https://as.example.org/T', false, false],
    ['https://as.example.org/t', 'https://as.example.org/t/sub', false, false],
    ['https://as.example.org/t', 'https://as.example.org/tt', false, false],
    ['https://as.example.org/', 'https://as.example.org/t', false, false],
    ['https://as.example.org/t', 'https://as.example.org.evil.example/t', false, false],
    ['https://as.example.org/t', 'https://as.example.org@evil.example/t', false, false],
    ['https://as.example.org/t', 'http://as.example.org/t', false, false],
    ['https://as.example.org/t', 'https://as.example.org:8443/t', false, false],
    ['http://127.0.0.1:8081/mcp', 'http://localhost:8081/mcp', false, false],
    ['http://127.0.0.1:8081/mcp', 'http://127.0.0.1:8081/mcp//', false, false],
    ['http://127.0.0.1:8081/a/../mcp', 'http://127.0.0.1:8081/mcp', false, false],
    ['http://127.0.0.1:8081/mcp?x', 'http://127.0.0.1:8081/mcp?x', false, false],
    ['http://127.0.0.1:8081/mcp#x', 'http://127.0.0.1:8081/mcp#x', false, false],
  ];
  for (const [a, b, issuers, resources] of pairs) {
    it(`${a} and ${b}: ${issuers ? 'one' : 'two'} issuer(s), ${resources ? 'one' : 'two'} resource(s)`, () => {
      assert.equal(sameIssuer(a, b), issuers);
      assert.equal(sameIssuer(b, a), issuers);
      assert.equal(sameResource(a, b), resources);
      assert.equal(sameResource(b, a), resources);
    });
  }
});

describe('required forms of options', () => {
  it('returns the form, or a UsageError naming the option and the problem', () => {
    assert.equal(requireResourceForm('HTTP://Notes.Example:80/mcp/', '--resource'), 'http://notes.example/mcp');
    assert.equal(requireIssuerForm('HTTP://AS.Example:80', '--issuer'), 'http://as.example/');
    assert.throws(
      () => requireResourceForm('http://a/mcp?x', '--resource'),
      (err) =>
        err instanceof UsageError &&
        err.message === "--resource: 'http://a/mcp?x' must not have a query string (expected an http(s) URL)",
    );
    assert.throws(
      () => requireIssuerForm('ftp://a', '--trusted-issuer'),
      /^UsageError: --trusted-issuer: 'ftp:\/\/a' must use http or https/,
    );
  });
});
