import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { waitFor } from '@notegate/kit/testing';
import { WorkloadApiBundleSource } from '../../../src/spiffe/bundles/workload-api-bundle-source.js';
import { parseWorkloadApiAddress } from '../../../src/spiffe/workload-api/address.js';
import {
  type JwtBundlesListener,
  type StreamHandle,
  WorkloadApiClient,
} from '../../../src/spiffe/workload-api/client.js';
import { fastClient, startProvider, tempSocketDir } from '../../support/provider-fixtures.js';

/** Counts the streams the source opens, so a test can wait for reconnects instead of sleeping. */
class CountingClient extends WorkloadApiClient {
  opened = 0;
  override watchJwtBundles(listener: JwtBundlesListener): StreamHandle {
    this.opened += 1;
    return super.watchJwtBundles(listener);
  }
}

describe('WorkloadApiBundleSource', () => {
  it('stops for good, unavailable, when the server answers Unimplemented', async (t) => {
    const socketPath = join(await tempSocketDir(t), '..', 'bare.sock');
    const server = new Server();
    await new Promise<void>((resolve, reject) =>
      server.bindAsync(`unix://${socketPath}`, ServerCredentials.createInsecure(), (err) =>
        err ? reject(err) : resolve(),
      ),
    );
    t.after(() => server.forceShutdown());
    const events: string[] = [];
    const source = new WorkloadApiBundleSource({
      client: fastClient(t, socketPath),
      backoff: { initialMs: 5, maxMs: 10 },
      onEvent: (message) => events.push(message),
    }).start();
    t.after(() => source.close());
    await waitFor('the stream to stop', () => events.some((event) => event.endsWith('not retrying')));
    const result = source.keysFor('example.org');
    assert.equal(result.status, 'unavailable');
    assert.match(result.status === 'unavailable' ? result.reason : '', /stopped: .*UNIMPLEMENTED/);
    assert.equal(events.length, 1, 'no reconnect attempts');
  });

  it('says once, in words, that the socket is missing, however often it retries; and when the stream opens', async (t) => {
    const socketDir = await tempSocketDir(t);
    const socket = `unix://${join(socketDir, 'authz.sock')}`;
    const client = new CountingClient({
      address: parseWorkloadApiAddress(socket, 'test'),
      reconnectBackoff: { initialMs: 10, maxMs: 50 },
    });
    t.after(() => client.close());
    const events: string[] = [];
    const source = new WorkloadApiBundleSource({
      client,
      backoff: { initialMs: 5, maxMs: 10 },
      onEvent: (message) => events.push(message),
    }).start();
    t.after(() => source.close());
    await waitFor('three reconnects', () => client.opened >= 4);
    assert.equal(events.length, 1, events.join('\n'));
    assert.ok(
      events[0]?.startsWith(`Workload API FetchJWTBundles at ${socket}: cannot connect: no socket at that path;`),
      events[0],
    );
    assert.doesNotMatch(events[0] ?? '', /ENOENT|Resolution note|No connection established/);

    await startProvider(t, { socketDir });
    await waitFor('the first bundle', () => source.keysFor('example.org').status === 'ok');
    assert.deepEqual(events.slice(1), ['JWT bundle stream open again']);
  });
});
