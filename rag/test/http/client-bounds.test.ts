import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { closeServer, listen, type ServerLimits } from '@notegate/kit/http';
import { dripBody, dripHeaders, getAndClose, holdConnection } from '@notegate/kit/testing';
import { createSearchServer } from '../../src/http/search-server.js';
import { SearchIndex } from '../../src/search/search-index.js';
import { MINILM, model, tempDir } from '../../test-support/fixtures.js';

/** A search server over no index with a model that never loads: enough for what happens before a search. */
async function boundedServer(t: TestContext, limits: Partial<ServerLimits>): Promise<URL> {
  const indexPath = path.join(tempDir(t), 'index.sqlite');
  const server = createSearchServer({
    index: new SearchIndex({
      indexPath,
      model: model(MINILM),
      modelCacheDir: '/nonexistent',
      loadEmbedder: () => Promise.reject(new Error('never loaded here')),
    }),
    indexPath: 'index.sqlite',
    vaults: ['notes'],
    bindHost: '127.0.0.1',
    log: () => undefined,
    version: '0.0.0-test',
    limits,
  });
  const url = await listen(server, '127.0.0.1', 0);
  t.after(() => closeServer(server));
  return url;
}

describe('notegate-rag serve bounds its clients', () => {
  it('cuts a client that drips its search body or its headers past the request bound (408)', async (t) => {
    const url = await boundedServer(t, { requestTimeoutMs: 300 });
    assert.equal((await dripBody(url, '/search')).statusLine, 'HTTP/1.1 408 Request Timeout');
    assert.equal((await dripHeaders(url, '/health')).statusLine, 'HTTP/1.1 408 Request Timeout');
  });

  it('answers a request on a connection beyond --max-connections with 503 server_busy', async (t) => {
    const url = await boundedServer(t, { maxConnections: 1 });
    const held = await holdConnection(url);
    t.after(() => held.destroy());
    const reply = await getAndClose(url, '/health');
    assert.equal(reply.statusLine, 'HTTP/1.1 503 Service Unavailable');
    assert.ok(reply.text.endsWith('{"error":"server_busy","message":"too many connections; retry later"}'));
  });
});
