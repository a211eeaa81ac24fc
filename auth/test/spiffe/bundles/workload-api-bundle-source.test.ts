import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { waitFor } from '@notegate/kit/testing';
import { WorkloadApiBundleSource } from '../../../src/spiffe/bundles/workload-api-bundle-source.js';
import { fastClient, tempSocketDir } from '../../support/provider-fixtures.js';

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
});
