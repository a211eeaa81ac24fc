import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSpiffeId } from '../../src/index.js';
import type { SpiffeIdRule } from '../../src/spiffe/spiffe-id.js';
import { formatSpiffeId, parseTrustDomain, SpiffeIdError } from '../../src/spiffe/spiffe-id.js';

const VALID: ReadonlyArray<readonly [string, string, string]> = [
  ['spiffe://example.org', 'example.org', ''],
  ['spiffe://example.org/agent', 'example.org', '/agent'],
  ['spiffe://example.org/ns/prod/sa/web-1', 'example.org', '/ns/prod/sa/web-1'],
  ['spiffe://a_b-c.d9/A.Z-_09', 'a_b-c.d9', '/A.Z-_09'],
  ['spiffe://192.168.0.1/x', '192.168.0.1', '/x'],
  ['spiffe://example.org/.path/..path/...', 'example.org', '/.path/..path/...'],
  [`spiffe://${'t'.repeat(255)}`, 't'.repeat(255), ''],
  [`spiffe://example.org/${'p'.repeat(2048 - 'spiffe://example.org/'.length)}`, 'example.org', `/${'p'.repeat(2027)}`],
];

const INVALID: ReadonlyArray<readonly [string, SpiffeIdRule]> = [
  ['', 'empty'],
  [`spiffe://example.org/${'p'.repeat(2048)}`, 'too_long'],
  ['example.org/agent', 'scheme'],
  ['http://example.org/agent', 'scheme'],
  ['Spiffe://example.org/agent', 'scheme'],
  ['SPIFFE://example.org/agent', 'scheme'],
  ['spiffe:/example.org/agent', 'scheme'],
  ['spiffe://', 'trust_domain_missing'],
  ['spiffe:///agent', 'trust_domain_missing'],
  ['spiffe://Example.org/agent', 'trust_domain_chars'],
  ['spiffe://example.org:8080/agent', 'trust_domain_chars'],
  ['spiffe://user@example.org/agent', 'trust_domain_chars'],
  ['spiffe://user:pw@example.org', 'trust_domain_chars'],
  ['spiffe://example.org?x=1', 'trust_domain_chars'],
  ['spiffe://example.org#frag', 'trust_domain_chars'],
  ['spiffe://ex%41mple.org/agent', 'trust_domain_chars'],
  ['spiffe://[::1]/agent', 'trust_domain_chars'],
  [`spiffe://${'t'.repeat(256)}`, 'trust_domain_too_long'],
  ['spiffe://example.org/agent?x=1', 'path_chars'],
  ['spiffe://example.org/agent#frag', 'path_chars'],
  ['spiffe://example.org/a%20b', 'path_chars'],
  ['spiffe://example.org/a b', 'path_chars'],
  ['spiffe://example.org/a:b', 'path_chars'],
  ['spiffe://example.org/caf\u00e9', 'path_chars'],
  ['spiffe://example.org//agent', 'path_empty_segment'],
  ['spiffe://example.org/a//b', 'path_empty_segment'],
  ['spiffe://example.org/.', 'path_dot_segment'],
  ['spiffe://example.org/..', 'path_dot_segment'],
  ['spiffe://example.org/a/../b', 'path_dot_segment'],
  ['spiffe://example.org/a/./b', 'path_dot_segment'],
  ['spiffe://example.org/', 'path_trailing_slash'],
  ['spiffe://example.org/agent/', 'path_trailing_slash'],
];

describe('parseSpiffeId', () => {
  for (const [id, trustDomain, path] of VALID) {
    it(`accepts ${id.length > 60 ? `${id.slice(0, 50)}… (${id.length} bytes)` : id}`, () => {
      assert.deepEqual(parseSpiffeId(id), { trustDomain, path });
      assert.equal(formatSpiffeId({ trustDomain, path }), id);
    });
  }
  for (const [id, rule] of INVALID) {
    it(`refuses ${JSON.stringify(id.length > 60 ? `${id.slice(0, 50)}…` : id)} by rule ${rule}`, () => {
      assert.throws(
        () => parseSpiffeId(id),
        (err: unknown) =>
          err instanceof SpiffeIdError &&
          err.code === 'ERR_SPIFFE_ID' &&
          err.rule === rule &&
          /SPIFFE ID/.test(err.message),
      );
    });
  }
  it('names the broken rule in the message', () => {
    assert.throws(() => parseSpiffeId('spiffe://example.org/a/../b'), /path cannot contain dot segments/);
    assert.throws(() => parseSpiffeId('spiffe://example.org:443/x'), /trust domain characters are limited/);
  });
});

describe('parseTrustDomain', () => {
  it('accepts a bare lowercase name and refuses anything else', () => {
    assert.equal(parseTrustDomain('example.org'), 'example.org');
    assert.throws(() => parseTrustDomain(''), { rule: 'trust_domain_missing' });
    assert.throws(() => parseTrustDomain('spiffe://example.org'), { rule: 'trust_domain_chars' });
    assert.throws(() => parseTrustDomain('Example.org'), { rule: 'trust_domain_chars' });
  });
});
