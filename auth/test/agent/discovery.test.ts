import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '@notegate/kit/cli';
import { fetchAccessToken } from '../../src/agent/fetch-access-token.js';
import { AuditLog } from '../../src/audit/audit-log.js';
import { rejectsAt } from '../support/agent-assertions.js';
import { AS_METADATA_PATH, FAKE_SVID, fakeOAuthWorld, PRM_PATH } from '../support/fake-oauth-world.js';
import { ScriptedServer } from '../support/scripted-server.js';

describe('fetchAccessToken: the ordered steps', () => {
  it('reads the metadata, fetches an SVID for the issuer and sends the jwt-spiffe client_credentials grant', async (t) => {
    const w = await fakeOAuthWorld(t);
    const sentAt = Date.UTC(2026, 10, 22, 9, 0, 0);
    const token = await fetchAccessToken({ ...w.options, clock: () => sentAt });
    assert.deepEqual(token, {
      accessToken: 'access.token.value',
      expiresAt: new Date(sentAt + 300_000),
      issuer: w.issuer,
      scope: 'notes:read',
      resource: w.resource,
    });
    assert.deepEqual(w.svids.audiences, [w.issuer]);
    const [form, ...more] = w.tokenForms();
    assert.equal(more.length, 0);
    assert.deepEqual(Object.fromEntries(form ?? []), {
      grant_type: 'client_credentials',
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-spiffe',
      client_assertion: FAKE_SVID,
      resource: w.resource,
      scope: 'notes:read',
    });
    assert.deepEqual(
      w.authServer.requests.map((r) => `${r.method} ${r.path}`),
      [`GET ${AS_METADATA_PATH}`, 'POST /token'],
    );
    const [line] = w.auditLines.map((l) => JSON.parse(l));
    assert.equal(line.component, 'agent');
    assert.equal(line.decision, 'allow');
    assert.equal(line.reason, `issuer_trusted: ${w.issuer}`);
  });

  it('requests every scope in scopes_supported when no scope is given (MCP scope selection)', async (t) => {
    const w = await fakeOAuthWorld(t);
    await fetchAccessToken({ ...w.options, scope: undefined });
    assert.equal(w.tokenForms()[0]?.get('scope'), 'notes:read notes:write');
    w.resourceServer.json(PRM_PATH, w.prm({ scopes_supported: undefined }));
    await assert.rejects(fetchAccessToken({ ...w.options, scope: undefined }), UsageError);
  });

  it('refuses options that are not usable before any request', async (t) => {
    const w = await fakeOAuthWorld(t);
    await assert.rejects(fetchAccessToken({ ...w.options, trustedIssuers: [] }), /trustedIssuers: at least one/);
    await assert.rejects(fetchAccessToken({ ...w.options, resource: `${w.resource}?x=1` }), /resource: .* query/);
    await assert.rejects(fetchAccessToken({ ...w.options, scope: 'notes:read  notes:write' }), UsageError);
    assert.equal(w.resourceServer.requests.length, 0);
  });
});

describe('step 1: protected resource metadata', () => {
  const mismatches: [string, (resource: string) => string][] = [
    ['two trailing slashes', (r) => `${r}//`],
    ['the case of the path', (r) => r.replace(/\/mcp$/, '/MCP')],
    ['a longer path', (r) => `${r}/tools`],
    ['a prefix of the path', (r) => r.replace(/\/mcp$/, '/')],
    ['another port', (r) => r.replace(/:(\d+)\//, (_m, port: string) => `:${Number(port) + 1}/`)],
    ['another host', (r) => r.replace('127.0.0.1', 'localhost')],
  ];
  for (const [what, change] of mismatches) {
    it(`refuses metadata whose resource differs by ${what}, before anything reaches the issuer`, async (t) => {
      const w = await fakeOAuthWorld(t);
      w.resourceServer.json(PRM_PATH, w.prm({ resource: change(w.resource) }));
      await rejectsAt(fetchAccessToken(w.options), 'protected_resource_metadata', 'resource_mismatch', 'refused');
      assert.equal(w.authRequests(), 0);
      assert.equal(w.svids.audiences.length, 0);
    });
  }

  it('accepts a resource that differs only in the case of the host and the default port, and uses its spelling', async (t) => {
    const w = await fakeOAuthWorld(t);
    const port = new URL(w.resource).port;
    await fetchAccessToken({ ...w.options, resource: `HTTP://127.0.0.1:${port}/mcp` });
    assert.equal(w.tokenForms()[0]?.get('resource'), w.resource);
  });

  it('accepts metadata whose resource differs only by a trailing slash (one resource), and uses its spelling', async (t) => {
    const w = await fakeOAuthWorld(t);
    w.resourceServer.json(PRM_PATH, w.prm({ resource: `${w.resource}/` }));
    await fetchAccessToken(w.options);
    assert.equal(w.tokenForms()[0]?.get('resource'), `${w.resource}/`);
  });

  it('reads the metadata from a challenge resource_metadata URL, and still requires the same resource', async (t) => {
    const w = await fakeOAuthWorld(t);
    w.resourceServer.json('/prm/elsewhere', w.prm());
    const token = await fetchAccessToken({ ...w.options, resourceMetadataUrl: w.resourceServer.at('/prm/elsewhere') });
    assert.equal(token.resource, w.resource);
    assert.ok(!w.resourceServer.requests.some((r) => r.path === PRM_PATH), 'the well-known URL was not used');
    w.resourceServer.json('/prm/other', w.prm({ resource: w.resourceServer.at('/other') }));
    await rejectsAt(
      fetchAccessToken({ ...w.options, resourceMetadataUrl: w.resourceServer.at('/prm/other') }),
      'protected_resource_metadata',
      'resource_mismatch',
      'refused',
    );
    await rejectsAt(
      fetchAccessToken({ ...w.options, resourceMetadataUrl: 'file:///etc/passwd' }),
      'protected_resource_metadata',
      'malformed_challenge',
      'transport',
    );
  });

  const malformed: [string, Record<string, unknown>][] = [
    ['no resource', { resource: undefined }],
    ['a numeric resource', { resource: 7 }],
    ['no authorization_servers', { authorization_servers: undefined }],
    ['an empty authorization_servers', { authorization_servers: [] }],
    ['a string authorization_servers', { authorization_servers: 'http://127.0.0.1:1' }],
    ['non-string issuers', { authorization_servers: [1] }],
    ['a string scopes_supported', { scopes_supported: 'notes:read' }],
  ];
  for (const [what, overrides] of malformed) {
    it(`refuses metadata with ${what} as malformed`, async (t) => {
      const w = await fakeOAuthWorld(t);
      w.resourceServer.json(PRM_PATH, w.prm(overrides));
      await rejectsAt(fetchAccessToken(w.options), 'protected_resource_metadata', 'malformed_metadata', 'transport');
      assert.equal(w.authRequests(), 0);
    });
  }

  it('refuses metadata that is not a JSON object, or not 200', async (t) => {
    const w = await fakeOAuthWorld(t);
    w.resourceServer.on(PRM_PATH, (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>'));
    await rejectsAt(fetchAccessToken(w.options), 'protected_resource_metadata', 'malformed_metadata', 'transport');
    w.resourceServer.json(PRM_PATH, [w.prm()]);
    await rejectsAt(fetchAccessToken(w.options), 'protected_resource_metadata', 'malformed_metadata', 'transport');
    w.resourceServer.json(PRM_PATH, { error: 'not_found' }, 404);
    await rejectsAt(fetchAccessToken(w.options), 'protected_resource_metadata', 'http_404', 'transport');
  });

  it('refuses a resource that does not accept bearer tokens in the header', async (t) => {
    const w = await fakeOAuthWorld(t);
    w.resourceServer.json(PRM_PATH, w.prm({ bearer_methods_supported: ['body'] }));
    await rejectsAt(fetchAccessToken(w.options), 'protected_resource_metadata', 'bearer_method_unsupported', 'refused');
  });
});

describe('step 2: the issuer allowlist', () => {
  it('refuses with issuer_refused, audited, before any request to the issuers and before any SVID fetch', async (t) => {
    const w = await fakeOAuthWorld(t);
    const other = await ScriptedServer.start(t);
    w.resourceServer.json(PRM_PATH, w.prm({ authorization_servers: [w.issuer, other.url.origin] }));
    // A path below the advertised issuer and the other issuer's host without its port: neither matches.
    const trusted = [`${w.issuer}/t`, `http://${other.url.hostname}`];
    const error = await rejectsAt(
      fetchAccessToken({ ...w.options, trustedIssuers: trusted }),
      'issuer_selection',
      'issuer_refused',
      'refused',
    );
    assert.match(error.message, new RegExp(w.issuer.replace(/[.]/g, '\\.')));
    assert.equal(w.authRequests(), 0, 'no request reached the refused issuer');
    assert.equal(other.requests.length, 0, 'no request reached the other refused issuer');
    assert.equal(w.svids.audiences.length, 0, 'no SVID was fetched');
    const [line, ...more] = w.auditLines.map((l) => JSON.parse(l));
    assert.equal(more.length, 0);
    assert.equal(line.component, 'agent');
    assert.equal(line.spiffe_id, null);
    assert.equal(line.tool, null);
    assert.equal(line.decision, 'deny');
    assert.match(line.reason, /^issuer_refused: /);
    assert.ok(String(line.reason).includes(w.issuer) && String(line.reason).includes(other.url.origin));
    assert.deepEqual(line.advertised_issuers, [w.issuer, other.url.origin]);
  });

  it('takes the first advertised issuer on the allowlist, skipping untrusted ones before it', async (t) => {
    const w = await fakeOAuthWorld(t);
    const untrusted = await ScriptedServer.start(t);
    const second = await ScriptedServer.start(t);
    w.resourceServer.json(
      PRM_PATH,
      w.prm({ authorization_servers: [untrusted.url.origin, w.issuer, second.url.origin] }),
    );
    const token = await fetchAccessToken({ ...w.options, trustedIssuers: [second.url.origin, `${w.issuer}/`] });
    assert.equal(token.issuer, w.issuer);
    assert.equal(untrusted.requests.length, 0);
    assert.equal(second.requests.length, 0);
  });

  it('writes no audit line when no audit log is given', async (t) => {
    const w = await fakeOAuthWorld(t);
    const lines: string[] = [];
    await fetchAccessToken({ ...w.options, audit: new AuditLog((line) => lines.push(line)) });
    assert.equal(lines.length, 1);
    const written = await writesToStdoutAndStderr(() => fetchAccessToken({ ...w.options, audit: undefined }));
    assert.deepEqual(written, [], 'nothing on stdout or stderr (no fallback audit sink)');
  });
});

describe('step 3: authorization server metadata', () => {
  it('refuses metadata whose issuer is not identical to the advertised one (RFC 8414 §3.3), before any SVID fetch', async (t) => {
    const w = await fakeOAuthWorld(t);
    for (const issuer of [`${w.issuer}/`, w.issuer.toUpperCase(), `${w.issuer}/t`, 'https://evil.example']) {
      w.authServer.json(AS_METADATA_PATH, w.asMetadata({ issuer }));
      await rejectsAt(fetchAccessToken(w.options), 'authorization_server_metadata', 'issuer_mismatch', 'refused');
    }
    assert.equal(w.svids.audiences.length, 0);
    assert.equal(w.tokenForms().length, 0);
  });

  it('reads the metadata of an issuer with a path from the path-inserted well-known URL', async (t) => {
    const w = await fakeOAuthWorld(t);
    const issuer = `${w.issuer}/tenant`;
    w.resourceServer.json(PRM_PATH, w.prm({ authorization_servers: [issuer] }));
    w.authServer.json(`${AS_METADATA_PATH}/tenant`, w.asMetadata({ issuer }));
    const token = await fetchAccessToken({ ...w.options, trustedIssuers: [issuer] });
    assert.equal(token.issuer, issuer);
    assert.deepEqual(w.svids.audiences, [issuer]);
  });

  const invalid: [string, Record<string, unknown>, string, 'refused' | 'transport'][] = [
    ['a relative token_endpoint', { token_endpoint: '/token' }, 'malformed_metadata', 'transport'],
    [
      'a token_endpoint with a fragment',
      { token_endpoint: 'http://127.0.0.1:9/token#x' },
      'malformed_metadata',
      'transport',
    ],
    ['an ftp token_endpoint', { token_endpoint: 'ftp://127.0.0.1/token' }, 'malformed_metadata', 'transport'],
    [
      'a token_endpoint with credentials',
      { token_endpoint: 'http://u:p@127.0.0.1/token' },
      'malformed_metadata',
      'transport',
    ],
    ['no token_endpoint', { token_endpoint: undefined }, 'malformed_metadata', 'transport'],
    [
      'auth methods without spiffe_jwt',
      { token_endpoint_auth_methods_supported: ['private_key_jwt'] },
      'auth_method_unsupported',
      'refused',
    ],
    [
      'grant types without client_credentials',
      { grant_types_supported: ['authorization_code'] },
      'grant_type_unsupported',
      'refused',
    ],
    [
      'a non-array auth method list',
      { token_endpoint_auth_methods_supported: 'spiffe_jwt' },
      'malformed_metadata',
      'transport',
    ],
  ];
  for (const [what, overrides, reason, failureClass] of invalid) {
    it(`refuses metadata with ${what}`, async (t) => {
      const w = await fakeOAuthWorld(t);
      w.authServer.json(AS_METADATA_PATH, w.asMetadata(overrides));
      await rejectsAt(fetchAccessToken(w.options), 'authorization_server_metadata', reason, failureClass);
      assert.equal(w.svids.audiences.length, 0);
    });
  }

  it('accepts metadata that omits the optional method and grant lists', async (t) => {
    const w = await fakeOAuthWorld(t);
    w.authServer.json(
      AS_METADATA_PATH,
      w.asMetadata({ token_endpoint_auth_methods_supported: undefined, grant_types_supported: undefined }),
    );
    assert.equal((await fetchAccessToken(w.options)).accessToken, 'access.token.value');
  });
});

/** What `run` writes to process.stdout and process.stderr; both are held back while it runs and restored after. */
async function writesToStdoutAndStderr(run: () => Promise<unknown>): Promise<string[]> {
  const written: string[] = [];
  const streams = [process.stdout, process.stderr];
  const originals = streams.map((stream) => stream.write);
  for (const stream of streams) {
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      written.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString());
      const callback = rest.find((arg) => typeof arg === 'function');
      if (callback) queueMicrotask(() => (callback as () => void)());
      return true;
    }) as typeof stream.write;
  }
  try {
    await run();
  } finally {
    for (const [index, stream] of streams.entries()) stream.write = originals[index] as typeof stream.write;
  }
  return written;
}
