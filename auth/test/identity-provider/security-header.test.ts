import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client, credentials, Metadata, status } from '@grpc/grpc-js';
import { workloadApiService } from '../../src/spiffe/workload-api/proto.js';
import { startProvider, tempSocketDir } from '../support/provider-fixtures.js';

/** A bare grpc-js client, so requests go out exactly as built here (no security header added). */
function rawClient(socketPath: string): Client {
  return new Client(`unix://${socketPath}`, credentials.createInsecure());
}

function unaryStatus(client: Client, metadata: Metadata): Promise<number> {
  const method = workloadApiService().fetchJwtSvid;
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      method.path,
      method.requestSerialize,
      method.responseDeserialize,
      { audience: ['http://a'] },
      metadata,
      (err) => resolve(err?.code ?? status.OK),
    );
  });
}

function streamStatus(client: Client, metadata: Metadata): Promise<{ code: number; details: string }> {
  const method = workloadApiService().fetchJwtBundles;
  return new Promise((resolve) => {
    const stream = client.makeServerStreamRequest(
      method.path,
      method.requestSerialize,
      method.responseDeserialize,
      {},
      metadata,
    );
    stream.on('error', () => {});
    stream.on('status', ({ code, details }) => resolve({ code, details }));
  });
}

describe('Workload API security header (SPIFFE_Workload_Endpoint §6)', () => {
  it('answers InvalidArgument to a unary call and a stream without workload.spiffe.io: true', async (t) => {
    const provider = await startProvider(t, { socketDir: await tempSocketDir(t) });
    const client = rawClient(provider.socketPath('agent'));
    t.after(() => client.close());
    assert.equal(await unaryStatus(client, new Metadata()), status.INVALID_ARGUMENT);
    const wrongValue = new Metadata();
    wrongValue.set('workload.spiffe.io', 'TRUE');
    assert.equal(await unaryStatus(client, wrongValue), status.INVALID_ARGUMENT);
    const stream = await streamStatus(client, new Metadata());
    assert.equal(stream.code, status.INVALID_ARGUMENT);
    assert.match(stream.details, /security header missing/);

    const withHeader = new Metadata();
    withHeader.set('workload.spiffe.io', 'true');
    assert.equal(await unaryStatus(client, withHeader), status.OK);
  });
});
