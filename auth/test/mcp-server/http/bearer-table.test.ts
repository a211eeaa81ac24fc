import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { describe, it } from 'node:test';
import { closeServer, listen, sendJson } from '@notegate/kit/http';
import { TEST_SUBJECT, type TestAccessTokenIssuer } from '../../support/access-token-issuer.js';
import {
  challengeParams,
  mcpHeaders,
  modernHeaders,
  modernToolCall,
  type NotesServerFixture,
  notification,
  startNotesServer,
  toolCall,
} from '../../support/notes-server-fixture.js';

interface Row {
  readonly name: string;
  readonly token: (issuer: TestAccessTokenIssuer, fixture: NotesServerFixture) => Promise<string | undefined>;
  readonly status: number;
  readonly error?: string;
  readonly auditReason: RegExp;
  /** Expected audit spiffe_id: verified sub, unverified, or none. */
  readonly spiffeId: 'verified' | 'unverified' | null;
  readonly body?: string;
}

const read = toolCall('notes.search', { query: 'anything' }, 7);

// The table of docs/protocol.md#bearer-checks, row by row.
const rows: Row[] = [
  {
    name: 'a request without a token gets a challenge with resource_metadata and no error',
    token: async () => undefined,
    status: 401,
    auditReason: /^http_401: Authentication required/,
    spiffeId: null,
  },
  {
    name: 'a non-Bearer Authorization counts as no token',
    token: async () => 'ignored',
    status: 401,
    auditReason: /^http_401: .*not Bearer/,
    spiffeId: null,
  },
  {
    name: 'a token whose header typ is JWT is refused (only at+jwt)',
    token: (issuer) => issuer.sign({ header: { typ: 'JWT' } }),
    status: 401,
    error: 'invalid_token',
    auditReason: /^invalid_token: The access token type is not at\+jwt \(typ is JWT\)/,
    spiffeId: 'unverified',
  },
  {
    name: 'a token without typ is refused',
    token: (issuer) => issuer.sign({ header: { typ: undefined } }),
    status: 401,
    error: 'invalid_token',
    auditReason: /typ is absent/,
    spiffeId: 'unverified',
  },
  {
    name: 'a token without kid is refused',
    token: (issuer) => issuer.sign({ header: { kid: undefined } }),
    status: 401,
    error: 'invalid_token',
    auditReason: /signing key is unknown \(kid is absent\)/,
    spiffeId: 'unverified',
  },
  {
    name: 'a token signed by a key outside the key set is refused',
    token: (issuer) => issuer.sign({ unpublishedKey: true }),
    status: 401,
    error: 'invalid_token',
    auditReason: /^invalid_token: The access token signing key is unknown/,
    spiffeId: 'unverified',
  },
  {
    name: 'a token claiming HS256 is refused (no algorithm confusion)',
    token: (issuer) => issuer.sign({ header: { alg: 'HS256' } }),
    status: 401,
    error: 'invalid_token',
    auditReason: /algorithm is not accepted \(alg is HS256\)/,
    spiffeId: 'unverified',
  },
  {
    name: 'a token claiming alg none is refused',
    token: (issuer) => issuer.sign({ header: { alg: 'none' } }),
    status: 401,
    error: 'invalid_token',
    auditReason: /alg is none/,
    spiffeId: 'unverified',
  },
  {
    name: 'a token whose payload was altered after signing is refused',
    token: async (issuer) => {
      const [header, , signature] = (await issuer.sign()).split('.');
      const forged = Buffer.from(JSON.stringify({ sub: TEST_SUBJECT, scope: 'notes:read notes:write admin' }));
      return `${header}.${forged.toString('base64url')}.${signature}`;
    },
    status: 401,
    error: 'invalid_token',
    auditReason: /signature is invalid/,
    spiffeId: 'unverified',
  },
  {
    name: 'a token from another issuer is refused',
    token: (issuer) => issuer.sign({ claims: { iss: 'http://elsewhere.example/issuer' } }),
    status: 401,
    error: 'invalid_token',
    auditReason: /issuer is not trusted/,
    spiffeId: 'verified',
  },
  {
    name: 'a token minted for another server is refused (audience)',
    token: (issuer) => issuer.sign({ claims: { aud: 'http://127.0.0.1:1/mcp' } }),
    status: 401,
    error: 'invalid_token',
    auditReason: /not meant for this resource/,
    spiffeId: 'verified',
  },
  {
    name: 'a token whose aud has a second value is refused',
    token: (issuer) => issuer.sign({ claims: { aud: [issuer.resource, 'http://127.0.0.1:1/mcp'] } }),
    status: 401,
    error: 'invalid_token',
    auditReason: /not meant for this resource/,
    spiffeId: 'verified',
  },
  {
    name: 'a token whose aud keeps a trailing slash is refused (aud is exact)',
    token: (issuer) => issuer.sign({ claims: { aud: `${issuer.resource}/` } }),
    status: 401,
    error: 'invalid_token',
    auditReason: /not meant for this resource/,
    spiffeId: 'verified',
  },
  ...['sub', 'exp', 'iat', 'scope'].map(
    (claim): Row => ({
      name: `a token without ${claim} is refused`,
      token: (issuer) => issuer.sign({ omit: [claim] }),
      status: 401,
      error: 'invalid_token',
      auditReason: new RegExp(`lacks required claims \\(${claim} is absent`),
      spiffeId: claim === 'sub' ? null : 'verified',
    }),
  ),
  {
    name: 'a token without iss is refused',
    token: (issuer) => issuer.sign({ omit: ['iss'] }),
    status: 401,
    error: 'invalid_token',
    auditReason: /issuer is not trusted \(iss is absent/,
    spiffeId: 'verified',
  },
  {
    name: 'a token with a numeric scope claim is refused',
    token: (issuer) => issuer.sign({ claims: { scope: 7 } }),
    status: 401,
    error: 'invalid_token',
    auditReason: /scope is absent or not well typed/,
    spiffeId: 'verified',
  },
  {
    name: 'an expired token is refused',
    token: (issuer, fixture) => issuer.sign({ claims: { exp: fixture.clock.nowS } }),
    status: 401,
    error: 'invalid_token',
    auditReason: /has expired/,
    spiffeId: 'verified',
  },
  {
    name: 'a token living longer than --max-token-lifetime (900 s) is refused',
    token: (issuer, fixture) => issuer.sign({ claims: { iat: fixture.clock.nowS, exp: fixture.clock.nowS + 901 } }),
    status: 401,
    error: 'invalid_token',
    auditReason:
      /^invalid_token: The access token lifetime exceeds the allowed maximum \(exp - iat is 901 s, more than 900 s\)$/,
    spiffeId: 'verified',
  },
  {
    name: 'a token issued more than 30 s in the future is refused',
    token: (issuer, fixture) =>
      issuer.sign({ claims: { iat: fixture.clock.nowS + 31, exp: fixture.clock.nowS + 331 } }),
    status: 401,
    error: 'invalid_token',
    auditReason: /^invalid_token: The access token is not yet valid \(iat \d+ is after now \d+ \+ 30 s\)$/,
    spiffeId: 'verified',
  },
  {
    name: 'a token issued 30 s in the future and living 900 s is accepted (both bounds inclusive)',
    token: (issuer, fixture) =>
      issuer.sign({ claims: { iat: fixture.clock.nowS + 30, exp: fixture.clock.nowS + 930 } }),
    status: 200,
    auditReason: /^allowed: access granted/,
    spiffeId: 'verified',
  },
  {
    name: 'a token without the tool scope gets 403 insufficient_scope naming the scope',
    token: (issuer) => issuer.sign({ claims: { scope: 'notes:write' } }),
    status: 403,
    error: 'insufficient_scope',
    auditReason: /^insufficient_scope: .*\(needs notes:read\)$/,
    spiffeId: 'verified',
  },
  {
    name: 'a valid token with the tool scope is allowed',
    token: (issuer) => issuer.sign({ claims: { scope: 'notes:read' } }),
    status: 200,
    auditReason: /^allowed: access granted \(tools\/call notes.search with notes:read\)$/,
    spiffeId: 'verified',
  },
];

/** The same call in both revisions: only 2026-07-28 names the method and tool in headers. */
const revisions = [
  {
    revision: '2025-11-25',
    headers: (token: string | undefined, extra: Record<string, string> = {}) => mcpHeaders(token, extra),
    body: read,
  },
  {
    revision: '2026-07-28',
    headers: (token: string | undefined, extra: Record<string, string> = {}) =>
      modernHeaders(token, 'tools/call', 'notes.search', extra),
    body: modernToolCall('notes.search', { query: 'anything' }, 7),
  },
] as const;

for (const { revision, headers: headersOf, body: requestBody } of revisions) {
  const namedInHeaders = revision === '2026-07-28';
  describe(`bearer authentication at the MCP server (the bearer-checks table, over HTTP, ${revision})`, () => {
    for (const row of rows) {
      it(row.name, async (t) => {
        const fixture = await startNotesServer(t);
        const token = await row.token(fixture.issuer, fixture);
        const headers = row.name.includes('non-Bearer')
          ? headersOf(undefined, { authorization: 'Basic dXNlcjpwdw==' })
          : headersOf(token);
        const response = await fetch(fixture.endpoint, { method: 'POST', headers, body: requestBody });
        assert.equal(response.status, row.status);
        const body = (await response.json()) as Record<string, unknown>;
        const audit = fixture.lastAudit();
        // A 401 is decided before the body is read: only headers can have named the tool.
        const bodyRead = row.status !== 401;
        assert.equal(audit.component, 'mcp_server:test');
        assert.equal(audit.tool, bodyRead || namedInHeaders ? 'notes.search' : null);
        assert.equal(audit.decision, row.status === 200 ? 'allow' : 'deny');
        assert.match(audit.reason, row.auditReason);
        const expectedId = { verified: TEST_SUBJECT, unverified: `unverified:${TEST_SUBJECT}` };
        assert.equal(audit.spiffe_id, row.spiffeId === null ? null : expectedId[row.spiffeId]);
        if (row.status === 200) {
          assert.equal(response.headers.get('www-authenticate'), null);
          assert.ok('result' in body);
          return;
        }
        const challenge = challengeParams(response.headers.get('www-authenticate'));
        assert.equal(challenge.resource_metadata, `${fixture.base.origin}/.well-known/oauth-protected-resource/mcp`);
        assert.equal(challenge.error, row.error);
        // A 401 names every scope of the server (RFC 6750 §3), which needs no body; a 403 the one this call needs.
        assert.equal(challenge.scope, row.status === 401 ? 'notes:read notes:write' : 'notes:read');
        if (bodyRead) {
          assert.equal(body.id, 7);
          assert.deepEqual(Object.keys(body).sort(), ['error', 'id', 'jsonrpc']);
          const error = body.error as { data: Record<string, unknown> };
          assert.equal(error.data.error, row.error);
          assert.equal(challenge.error_description, error.data.error_description);
          return;
        }
        // Unread, so not known to be JSON-RPC: the OAuth error body, and the connection closes.
        assert.equal(response.headers.get('connection'), 'close');
        assert.equal(body.error, row.error);
        assert.equal(typeof body.error_description, 'string');
        if (row.error) assert.equal(challenge.error_description, body.error_description);
      });
    }
  });
}

describe('bearer challenge details', () => {
  it('answers a request that is not a JSON-RPC request with {error, error_description}', async (t) => {
    const fixture = await startNotesServer(t);
    const noToken = await post(fixture, undefined, notification('notifications/initialized'));
    assert.equal(noToken.status, 401);
    assert.deepEqual(await noToken.json(), { error_description: 'Authentication required' });
    assert.equal(challengeParams(noToken.headers.get('www-authenticate')).scope, 'notes:read notes:write');
    const bad = await post(fixture, await fixture.issuer.sign({ header: { typ: 'JWT' } }), notification('ping'));
    assert.deepEqual(await bad.json(), {
      error: 'invalid_token',
      error_description: 'The access token type is not at+jwt',
    });
  });

  it('takes the lifetime bound from its configuration (--max-token-lifetime)', async (t) => {
    const fixture = await startNotesServer(t, { maxTokenLifetimeS: 300 });
    const { nowS } = fixture.clock;
    assert.equal((await post(fixture, await fixture.issuer.sign({ claims: { exp: nowS + 300 } }), read)).status, 200);
    assert.equal((await post(fixture, await fixture.issuer.sign({ claims: { exp: nowS + 301 } }), read)).status, 401);
    assert.match(fixture.lastAudit().reason, /more than 300 s/);
  });

  it('never fetches keys from a URL the token names (jku, x5u) and refuses the token', async (t) => {
    const fixture = await startNotesServer(t);
    let attackerHits = 0;
    const attacker = createServer((_req, res) => {
      attackerHits++;
      sendJson(res, 200, { keys: [] });
    });
    const attackerBase = await listen(attacker, '127.0.0.1', 0);
    t.after(() => closeServer(attacker));
    const token = await fixture.issuer.sign({
      unpublishedKey: true,
      header: { jku: `${attackerBase.origin}/jwks`, x5u: `${attackerBase.origin}/cert` },
    });
    const response = await post(fixture, token, read);
    assert.equal(response.status, 401);
    assert.equal(attackerHits, 0);
    assert.ok(fixture.issuer.fetchCount >= 1);
  });

  it('refuses a key set outage with invalid_token and audits jwks_unavailable, then recovers', async (t) => {
    const fixture = await startNotesServer(t);
    fixture.issuer.outage = true;
    const token = await fixture.issuer.sign();
    const during = await post(fixture, token, read);
    assert.equal(during.status, 401);
    assert.equal(challengeParams(during.headers.get('www-authenticate')).error, 'invalid_token');
    assert.match(fixture.lastAudit().reason, /^jwks_unavailable: .*answered 503/);
    assert.equal(fixture.lastAudit().spiffe_id, `unverified:${TEST_SUBJECT}`);
    assert.equal(fixture.issuer.fetchCount, 1);

    const stillDown = await post(fixture, token, read);
    assert.equal(stillDown.status, 401);
    assert.equal(fixture.issuer.fetchCount, 1, 'no second fetch within 10 s');
    assert.match(fixture.lastAudit().reason, /^jwks_unavailable: .*rate-limited/);

    fixture.issuer.outage = false;
    fixture.clock.advanceMs(10_000);
    const after = await post(fixture, token, read);
    assert.equal(after.status, 200);
    assert.equal(fixture.issuer.fetchCount, 2);
  });

  it('audits jwks_unavailable when the key set endpoint cannot be reached at all', async (t) => {
    const fixture = await startNotesServer(t, {
      fetch: () => Promise.reject(new TypeError('fetch failed: ECONNREFUSED')),
    });
    const response = await post(fixture, await fixture.issuer.sign(), read);
    assert.equal(response.status, 401);
    assert.match(fixture.lastAudit().reason, /^jwks_unavailable: .*ECONNREFUSED/);
  });

  it('picks up a rotated key with one refetch, and refetches for an unknown kid at most every 10 s', async (t) => {
    const fixture = await startNotesServer(t);
    const { issuer, clock } = fixture;
    assert.equal((await post(fixture, await issuer.sign(), read)).status, 200);
    assert.equal(issuer.fetchCount, 1);

    clock.advanceMs(10_000);
    await issuer.rotate();
    assert.equal((await post(fixture, await issuer.sign(), read)).status, 200, 'rotated key accepted');
    assert.equal(issuer.fetchCount, 2, 'exactly one refetch for the new kid');

    clock.advanceMs(9_999);
    const unknown = await post(fixture, await issuer.sign({ unpublishedKey: true }), read);
    assert.equal(unknown.status, 401);
    assert.equal(issuer.fetchCount, 2, 'a second unknown kid within 10 s gets 401 without a fetch');
    assert.match(fixture.lastAudit().reason, /rate-limited/);

    clock.advanceMs(1);
    assert.equal((await post(fixture, await issuer.sign({ unpublishedKey: true }), read)).status, 401);
    assert.equal(issuer.fetchCount, 3, 'after 10 s an unknown kid may refetch again');
  });

  it('forgets remembered tokens when the key set changes: a retired key stops working at once', async (t) => {
    const fixture = await startNotesServer(t);
    const oldToken = await fixture.issuer.sign();
    assert.equal((await post(fixture, oldToken, read)).status, 200);
    assert.equal((await post(fixture, oldToken, read)).status, 200, 'remembered');
    fixture.clock.advanceMs(10_000);
    await fixture.issuer.rotate({ retire: true });
    assert.equal((await post(fixture, await fixture.issuer.sign(), read)).status, 200, 'new key fetched');
    const refused = await post(fixture, oldToken, read);
    assert.equal(refused.status, 401);
    assert.match(fixture.lastAudit().reason, /signing key is unknown/);
  });

  it('refuses a remembered token once it expires', async (t) => {
    const fixture = await startNotesServer(t);
    const token = await fixture.issuer.sign();
    assert.equal((await post(fixture, token, read)).status, 200);
    assert.equal((await post(fixture, token, read)).status, 200);
    fixture.clock.advanceMs(300_000);
    const expired = await post(fixture, token, read);
    assert.equal(expired.status, 401);
    assert.match(fixture.lastAudit().reason, /has expired/);
  });
});

function post(fixture: NotesServerFixture, token: string | undefined, body: string): Promise<Response> {
  return fetch(fixture.endpoint, { method: 'POST', headers: mcpHeaders(token), body });
}
