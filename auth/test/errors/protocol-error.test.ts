import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bearerError } from '../../src/errors/bearer-errors.js';
import { requestError } from '../../src/errors/mcp-request-errors.js';
import { isTokenEndpointError, tokenError } from '../../src/errors/token-endpoint-errors.js';
import { isBearerError } from '../../src/mcp-server/http/refusal.js';

describe('error registries', () => {
  it('tell their own errors from same-named codes of another registry', () => {
    assert.equal(isTokenEndpointError(tokenError('ERR_CONTENT_TYPE')), true);
    assert.equal(isTokenEndpointError(requestError('ERR_CONTENT_TYPE')), false);
    assert.equal(isBearerError(bearerError('ERR_TOKEN_MISSING')), true);
    assert.equal(isBearerError(requestError('ERR_CONTENT_TYPE')), false);
  });

  it('read status, code and description from the row the error was made from', () => {
    const error = tokenError('ERR_BODY_TOO_LARGE', 'detail');
    assert.equal(error.status, 413);
    assert.equal(error.protocolCode, 'invalid_request');
    assert.equal(error.auditReason(), `invalid_request: ${error.description} (detail)`);
  });
});
