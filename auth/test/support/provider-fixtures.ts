import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import type { IdentityProviderOptions } from '../../src/identity-provider/identity-provider.js';
import { DevelopmentIdentityProvider } from '../../src/identity-provider/identity-provider.js';
import type { WorkloadsConfig } from '../../src/identity-provider/workloads-file.js';
import { WorkloadApiBundleSource } from '../../src/spiffe/bundles/workload-api-bundle-source.js';
import { parseWorkloadApiAddress } from '../../src/spiffe/workload-api/address.js';
import { WorkloadApiClient } from '../../src/spiffe/workload-api/client.js';
import type { Registrar } from './cleanups.js';

export const WORKLOADS: WorkloadsConfig = {
  trustDomain: 'example.org',
  workloads: [
    { name: 'agent', spiffeId: 'spiffe://example.org/agent' },
    { name: 'authz', spiffeId: 'spiffe://example.org/authz' },
  ],
};

export async function tempSocketDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'notegate-idp-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return join(dir, 'sockets');
}

export async function startProvider(
  t: Registrar,
  options: Partial<IdentityProviderOptions> & { socketDir: string },
): Promise<DevelopmentIdentityProvider> {
  const provider = await DevelopmentIdentityProvider.start({
    config: WORKLOADS,
    svidTtlS: 300,
    keyType: 'ec-p256',
    ...options,
  });
  t.after(() => provider.stop());
  return provider;
}

/** A client with short retries and reconnect backoff, so outage tests stay fast. */
export function fastClient(t: Registrar, socketPath: string): WorkloadApiClient {
  const client = new WorkloadApiClient({
    address: parseWorkloadApiAddress(`unix://${socketPath}`, 'test'),
    callTimeoutMs: 2_000,
    retry: { initialMs: 5, maxMs: 20, maxAttempts: 2 },
    reconnectBackoff: { initialMs: 10, maxMs: 50 },
  });
  t.after(() => client.close());
  return client;
}

export function streamedBundles(t: Registrar, client: WorkloadApiClient): WorkloadApiBundleSource {
  const source = new WorkloadApiBundleSource({ client, backoff: { initialMs: 10, maxMs: 50 } }).start();
  t.after(() => source.close());
  return source;
}

/** The kids the source holds for example.org, or its status when it holds none. */
export function heldKids(source: WorkloadApiBundleSource): string[] | string {
  const result = source.keysFor('example.org');
  return result.status === 'ok' ? [...result.keys.keys()] : result.status;
}
