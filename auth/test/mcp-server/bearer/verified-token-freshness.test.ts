import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProtocolError } from '../../../src/errors/protocol-error.js';
import { VerifiedTokenCache } from '../../../src/mcp-server/bearer/verified-token-cache.js';
import { createAccessTokenVerifier } from '../../../src/mcp-server/bearer/verify-access-token.js';
import { fetchKeySet } from '../../../src/mcp-server/keys/fetch-key-set.js';
import { KEY_SET_MAX_AGE_MS, KeySetCache } from '../../../src/mcp-server/keys/key-set-cache.js';
import { TestAccessTokenIssuer } from '../../support/access-token-issuer.js';
import { ManualClock } from '../../support/manual-clock.js';

const RESOURCE = 'http://127.0.0.1:9/mcp';

describe('a remembered token and the freshness of the key set', () => {
  it('stops accepting a remembered token once its key left the set, even when every request is a cache hit', async (t) => {
    const clock = new ManualClock(Date.now());
    const issuer = await TestAccessTokenIssuer.start(RESOURCE, clock.now);
    t.after(() => issuer.close());
    const cache = new VerifiedTokenCache();
    const keys = new KeySetCache({
      fetchKeySet: () => fetchKeySet(issuer.jwksUri, fetch),
      clock: clock.now,
      onKeysRevoked: () => cache.clear(),
    });
    const verify = createAccessTokenVerifier({
      issuer: issuer.issuer,
      resource: RESOURCE,
      keys,
      clock: clock.now,
      maxLifetimeS: 900,
      cache,
    });
    const token = await issuer.sign();
    await verify(token);
    await issuer.rotate({ retire: true });
    await verify(token);
    assert.equal(cache.size, 1, 'remembered while the set is fresh');
    clock.advanceMs(KEY_SET_MAX_AGE_MS);
    await assert.rejects(verify(token), (err) => err instanceof ProtocolError && err.code === 'ERR_KEY_UNKNOWN');
    assert.equal(cache.size, 0, 'the refetch that removed the key cleared what it had verified');
    assert.equal(issuer.fetchCount, 2);
  });
});
