import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { status } from '@grpc/grpc-js';
import { firstTerminalControl } from '@notegate/kit';
import { fetchAccessToken } from '../../src/agent/fetch-access-token.js';
import { WorkloadApiError } from '../../src/spiffe/workload-api/errors.js';
import { rejectsAt } from '../support/agent-assertions.js';
import { fakeOAuthWorld } from '../support/fake-oauth-world.js';

const GOOD = { access_token: 'access.token.value', token_type: 'Bearer', expires_in: 300, scope: 'notes:read' };

describe('step 4: the JWT-SVID', () => {
  it('reports a Workload API without an identity for the caller as an authentication failure', async (t) => {
    const w = await fakeOAuthWorld(t);
    w.svids.failure = new WorkloadApiError(status.PERMISSION_DENIED, 'no identity issued');
    await rejectsAt(fetchAccessToken(w.options), 'svid', 'no_identity', 'authentication');
    assert.equal(w.tokenForms().length, 0);
  });

  it('reports an unreachable Workload API as a transport failure', async (t) => {
    const w = await fakeOAuthWorld(t);
    w.svids.failure = new WorkloadApiError(status.UNAVAILABLE, 'connect ENOENT /run/agent.sock');
    await rejectsAt(fetchAccessToken(w.options), 'svid', 'workload_api_unavailable', 'transport');
  });
});

describe('step 5: the token response', () => {
  const accepted: [string, Record<string, unknown>, string][] = [
    ['token_type in another case', { token_type: 'bearer' }, 'notes:read'],
    ['no scope (the requested one was granted)', { scope: undefined }, 'notes:read'],
    ['a refresh_token it ignores', { refresh_token: 'r' }, 'notes:read'],
    ['a granted scope it reports as given', { scope: 'notes:write notes:read' }, 'notes:write notes:read'],
  ];
  for (const [what, overrides, scope] of accepted) {
    it(`accepts a response with ${what}`, async (t) => {
      const w = await fakeOAuthWorld(t);
      w.authServer.json('/token', { ...GOOD, ...overrides });
      assert.equal((await fetchAccessToken(w.options)).scope, scope);
    });
  }

  const malformed: [string, Record<string, unknown>][] = [
    ['no access_token', { access_token: undefined }],
    ['an empty access_token', { access_token: '' }],
    ['an access_token with a newline', { access_token: 'abc\ndef' }],
    ['an access_token with a space', { access_token: 'abc def' }],
    ['a numeric access_token', { access_token: 42 }],
    ['token_type DPoP', { token_type: 'DPoP' }],
    ['no token_type', { token_type: undefined }],
    ['no expires_in', { expires_in: undefined }],
    ['expires_in as a string', { expires_in: '300' }],
    ['expires_in zero', { expires_in: 0 }],
    ['a fractional expires_in', { expires_in: 1.5 }],
    ['a scope with a double space', { scope: 'notes:read  notes:write' }],
    ['a numeric scope', { scope: 1 }],
  ];
  for (const [what, overrides] of malformed) {
    it(`refuses a success response with ${what}`, async (t) => {
      const w = await fakeOAuthWorld(t);
      w.authServer.json('/token', { ...GOOD, ...overrides });
      await rejectsAt(fetchAccessToken(w.options), 'token_request', 'malformed_token_response', 'transport');
    });
  }

  it('refuses a success response that is not JSON', async (t) => {
    const w = await fakeOAuthWorld(t);
    w.authServer.on('/token', (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('token'));
    await rejectsAt(fetchAccessToken(w.options), 'token_request', 'malformed_token_response', 'transport');
  });

  const errors: [number, string, 'refused' | 'transport'][] = [
    [400, 'invalid_scope', 'refused'],
    [400, 'invalid_target', 'refused'],
    [400, 'unauthorized_client', 'refused'],
    [401, 'invalid_client', 'refused'],
    [503, 'temporarily_unavailable', 'transport'],
    [500, 'server_error', 'transport'],
  ];
  for (const [statusCode, error, failureClass] of errors) {
    it(`reports ${statusCode} ${error} with the OAuth error and the HTTP status (${failureClass})`, async (t) => {
      const w = await fakeOAuthWorld(t);
      w.authServer.json('/token', { error, error_description: 'Fixed text.' }, statusCode);
      const err = await rejectsAt(fetchAccessToken(w.options), 'token_request', error, failureClass);
      assert.match(
        err.message,
        new RegExp(`^token_request: ${error}: HTTP ${statusCode} from POST .*/token .*"Fixed text\\."$`),
      );
      assert.match(err.message, /scope "notes:read"/);
    });
  }

  it('reports an error answer without an OAuth error body by its status', async (t) => {
    const w = await fakeOAuthWorld(t);
    w.authServer.on('/token', (_req, res) =>
      res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad gateway</h1>'),
    );
    await rejectsAt(fetchAccessToken(w.options), 'token_request', 'http_502', 'transport');
  });

  it('keeps server text on one line and bounded', async (t) => {
    const w = await fakeOAuthWorld(t);
    w.authServer.json(
      '/token',
      { error: 'invalid_scope', error_description: `line one\nline two ${'x'.repeat(2000)}` },
      400,
    );
    const err = await rejectsAt(fetchAccessToken(w.options), 'token_request', 'invalid_scope', 'refused');
    assert.ok(err.message.length < 700, `${err.message.length} characters`);
  });

  it('shows the control and bidirectional characters of server text as escapes', async (t) => {
    const w = await fakeOAuthWorld(t);
    const description = 'no \x1b]52;c;cm0gLXJmIH4=\x07 clip\u009b2J \u202eboard';
    w.authServer.json('/token', { error: 'invalid_scope', error_description: description }, 400);
    const err = await rejectsAt(fetchAccessToken(w.options), 'token_request', 'invalid_scope', 'refused');
    assert.equal(firstTerminalControl(err.message), undefined, err.message);
    assert.ok(err.message.endsWith('"no \\u001b]52;c;cm0gLXJmIH4=\\u0007 clip\\u009b2J \\u202eboard"'), err.message);
  });

  it('does not trust an error code outside the RFC 6749 charset as a reason', async (t) => {
    const w = await fakeOAuthWorld(t);
    w.authServer.json('/token', { error: 'bad\ncode' }, 400);
    const err = await rejectsAt(
      fetchAccessToken(w.options),
      'token_request',
      'unrecognized_error "bad\\ncode"',
      'refused',
    );
    assert.doesNotMatch(err.message, /\n/);
  });
});
