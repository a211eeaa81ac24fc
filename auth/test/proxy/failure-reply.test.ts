import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InsufficientScopeError, SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';
import { UsageError } from '@notegate/kit/cli';
import { failureReply } from '../../src/proxy/failure-reply.js';

const context = { resource: 'http://notes.test/mcp', tokenScope: 'notes:read' };
const httpError = (status: number, text: string) =>
  new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, 'Error POSTing to endpoint', {
    status,
    statusText: '',
    text,
  });

describe('the answer to a request that could not be relayed', () => {
  const cases: [string, unknown, number, string, RegExp][] = [
    [
      'a 401 after the one retry',
      new SdkHttpError(SdkErrorCode.ClientHttpAuthentication, 'Server returned 401 after re-authentication', {
        status: 401,
        statusText: '',
      }),
      -32000,
      'invalid_token',
      /answered 401 to a newly obtained token as well\. The proxy replaces a refused token once/,
    ],
    [
      'a 403 insufficient_scope, naming the scope needed and the scope held',
      new InsufficientScopeError({ requiredScope: 'notes:write' }),
      -32000,
      'insufficient_scope',
      /needs scope "notes:write"\. The proxy's token carries scope "notes:read"\. Start notegate proxy with --scope/,
    ],
    [
      'resource metadata without usable scopes_supported',
      new UsageError('scope: http://notes.test/mcp lists no usable scopes_supported; name the scopes to request'),
      -32000,
      'scope_required',
      /Start notegate proxy with --scope$/,
    ],
    [
      'a body that is not JSON',
      new SyntaxError('Unexpected end of JSON input'),
      -32603,
      'malformed_response',
      /a body that is not JSON$/,
    ],
    [
      'an answer of another content type',
      new SdkError(SdkErrorCode.ClientHttpUnexpectedContent, 'Unexpected content type: text/html', {
        contentType: 'text/html',
      }),
      -32603,
      'malformed_response',
      /content type "text\/html"/,
    ],
    ['an HTTP 503 without a JSON-RPC body', httpError(503, 'busy'), -32603, 'http_503', /HTTP 503/],
    [
      'an HTTP 400 whose JSON-RPC error answers another request',
      httpError(400, JSON.stringify({ jsonrpc: '2.0', id: 99, error: { code: -32600, message: 'x' } })),
      -32000,
      'http_400',
      /HTTP 400/,
    ],
  ];
  for (const [what, err, code, reason, message] of cases) {
    it(`answers ${what} with ${code} and data.error ${reason}`, () => {
      const reply = failureReply(err, 7, context);
      assert.ok('error' in reply, JSON.stringify(reply));
      assert.equal(reply.id, 7);
      assert.equal(reply.error.code, code);
      assert.equal((reply.error.data as { error: string }).error, reason);
      assert.match(reply.error.message, message);
      assert.doesNotMatch(reply.error.message, /\n/);
    });
  }

  it("passes the server's own JSON-RPC error for this request on unchanged", () => {
    const own = {
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32602, message: 'Unknown tool', data: { error: 'invalid_request' } },
    };
    assert.deepEqual(failureReply(httpError(400, JSON.stringify(own)), 7, context), own);
  });
});
