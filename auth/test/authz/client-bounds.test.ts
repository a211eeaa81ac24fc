import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dripBody, getAndClose, holdConnection } from '@notegate/kit/testing';
import { CLIENT_TEXT_MAX_CHARS } from '../../src/shared/clip.js';
import { startHarness } from '../support/authz-fixtures.js';
import { signToken } from '../support/svid-fixtures.js';

/** Far more than any audit line of a refusal carries once client text is clipped. */
const AUDIT_LINE_MAX_CHARS = 1_000;

describe('authz bounds its clients', () => {
  it('cuts a client that has not sent its whole token request within the request bound (408)', async (t) => {
    const h = await startHarness(t, { limits: { requestTimeoutMs: 300 } });
    const reply = await dripBody(h.authz.url, '/token');
    assert.equal(reply.statusLine, 'HTTP/1.1 408 Request Timeout');
    assert.equal(h.audit.length, 0, 'no request reached the token endpoint');
  });

  it('answers a request on a connection beyond --max-connections with 503 temporarily_unavailable', async (t) => {
    const h = await startHarness(t, { limits: { maxConnections: 1 } });
    const held = await holdConnection(h.authz.url);
    t.after(() => held.destroy());
    const reply = await getAndClose(h.authz.url, '/jwks.json');
    assert.equal(reply.statusLine, 'HTTP/1.1 503 Service Unavailable');
    assert.ok(
      reply.text.endsWith(
        '{"error":"temporarily_unavailable","error_description":"The token service is temporarily unavailable; retry later."}',
      ),
    );
  });
});

describe('client text in the audit lines of authz', () => {
  const clipped = (text: string) => `${text.slice(0, CLIENT_TEXT_MAX_CHARS)}…`;

  it('clips an 11,000-character unverified sub to 128 characters', async (t) => {
    const h = await startHarness(t);
    const sub = `spiffe://example.org/${'a'.repeat(11_000)}`;
    const response = await h.post(h.form(await h.svid({ sub })));
    assert.equal(response.status, 401);
    const line = h.audit.at(-1) ?? '';
    assert.ok(line.length < AUDIT_LINE_MAX_CHARS, `audit line of ${line.length} characters`);
    assert.equal(h.lastAudit().spiffe_id, `unverified:${clipped(sub)}`);
  });

  it('clips a long sub outside the trust domain, a long kid and foreign header names in the reason', async (t) => {
    const h = await startHarness(t);
    const foreignSub = `spiffe://elsewhere.example/${'b'.repeat(1_500)}`;
    const attempts = [
      await h.svid({ sub: foreignSub }),
      await signToken(h.key.privateKey, { alg: 'ES256', kid: 'k'.repeat(5_000), typ: 'JWT' }, h.claims()),
      await signToken(h.key.privateKey, { alg: 'ES256', kid: h.key.kid, ['x'.repeat(5_000)]: 1 }, h.claims()),
    ];
    for (const assertion of attempts) {
      assert.equal((await h.post(h.form(assertion))).status, 401);
      const line = h.audit.at(-1) ?? '';
      assert.ok(line.length < AUDIT_LINE_MAX_CHARS, `audit line of ${line.length} characters: ${line.slice(0, 200)}`);
    }
  });
});
