import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FormEncodingError, formContentTypeProblem, parseForm } from '../../src/authz/token-request.js';

const form = (text: string) => Object.fromEntries(parseForm(Buffer.from(text, 'latin1')));

describe('parseForm', () => {
  it('decodes percent-escapes and plus signs, keeping every value of a repeated name', () => {
    assert.deepEqual(form('a=1&b=x%20y+z&a=2&c=%F0%9F%94%91'), { a: ['1', '2'], b: ['x y z'], c: ['🔑'] });
  });

  it('treats a parameter without a value as omitted (RFC 6749 §3.2) and skips empty pairs', () => {
    assert.deepEqual(form('a=&b&&c=1'), { c: ['1'] });
    assert.deepEqual(form('resource=&resource=x'), { resource: ['x'] });
  });

  for (const [what, text] of [
    ['a broken escape', 'a=%G1'],
    ['a truncated escape', 'a=%4'],
    ['an escape that is not UTF-8', 'a=%FF'],
    ['a raw non-ASCII byte', 'a=\u00ff'],
    ['a raw newline', 'a=1\nb=2'],
  ] as const) {
    it(`refuses ${what}`, () => {
      assert.throws(() => parseForm(Buffer.from(text, 'latin1')), FormEncodingError);
    });
  }
});

describe('formContentTypeProblem', () => {
  it('accepts the form media type in any case, with a UTF-8 or ASCII charset', () => {
    for (const type of [
      'application/x-www-form-urlencoded',
      'Application/X-WWW-Form-URLEncoded',
      'application/x-www-form-urlencoded;charset=UTF-8',
      'application/x-www-form-urlencoded; charset="utf-8"',
      'application/x-www-form-urlencoded; charset=us-ascii',
    ]) {
      assert.equal(formContentTypeProblem(type), null, type);
    }
  });

  it('refuses other media types, other charsets and no Content-Type', () => {
    for (const type of [undefined, 'application/json', 'multipart/form-data; boundary=x', 'text/plain']) {
      assert.notEqual(formContentTypeProblem(type), null, String(type));
    }
    assert.match(formContentTypeProblem('application/x-www-form-urlencoded; charset=latin1') ?? '', /charset/);
  });
});
