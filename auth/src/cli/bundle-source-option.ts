import { readFile } from 'node:fs/promises';
import { UsageError } from '../errors/usage-error.js';
import { FileBundleSource } from '../spiffe/bundles/file-bundle-source.js';
import { importJwtBundleBytes } from '../spiffe/bundles/import-bundle.js';
import type { JwtBundleSource } from '../spiffe/bundles/jwt-bundle-source.js';
import { WorkloadApiBundleSource } from '../spiffe/bundles/workload-api-bundle-source.js';
import { resolveWorkloadApiAddress } from '../spiffe/workload-api/address.js';
import { WorkloadApiClient } from '../spiffe/workload-api/client.js';

export interface BundleSourceFlags {
  readonly jwtBundle: string | undefined;
  readonly workloadApi: string | undefined;
  readonly endpointSocketEnv: string | undefined;
  /** The policy's trust domain: a bundle file holds that domain's keys. */
  readonly trustDomain: string;
  readonly onEvent: (message: string) => void;
}

/** How long after start a missing first Workload API bundle is worth a line in the operator's log. */
const FIRST_BUNDLE_NOTICE_MS = 5_000;

/**
 * `--jwt-bundle FILE` or the Workload API (`--workload-api ADDR`, else SPIFFE_ENDPOINT_SOCKET).
 * A bundle file must be readable and valid at start (a start-up error otherwise); later outages of
 * either source make token requests 503 until it recovers. The Workload API source starts serving
 * at once: until its first bundle arrives, token requests get 503 (the agent may start after us).
 */
export async function openBundleSource(flags: BundleSourceFlags): Promise<JwtBundleSource> {
  if (flags.jwtBundle !== undefined && flags.workloadApi !== undefined) {
    throw new UsageError('give either --jwt-bundle FILE or --workload-api ADDR, not both');
  }
  if (flags.jwtBundle !== undefined) return openBundleFile(flags.jwtBundle, flags);
  if (flags.workloadApi === undefined && !flags.endpointSocketEnv) {
    throw new UsageError(
      'no JWT bundle source: pass --jwt-bundle FILE or --workload-api unix:///path (or set SPIFFE_ENDPOINT_SOCKET)',
    );
  }
  const address = resolveWorkloadApiAddress({
    explicit: flags.workloadApi,
    explicitSource: '--workload-api',
    endpointSocketEnv: flags.endpointSocketEnv,
  });
  const client = new WorkloadApiClient({ address });
  const source = new WorkloadApiBundleSource({ client, onEvent: flags.onEvent }).start();
  source.ready(FIRST_BUNDLE_NOTICE_MS).then(
    () => flags.onEvent(`JWT bundle received from ${address.display}`),
    () => flags.onEvent(`still waiting for a JWT bundle from ${address.display}; token requests get 503 meanwhile`),
  );
  return {
    keysFor: (trustDomain) => source.keysFor(trustDomain),
    ready: (timeoutMs) => source.ready(timeoutMs),
    close: async () => {
      await source.close();
      client.close();
    },
  };
}

async function openBundleFile(path: string, flags: BundleSourceFlags): Promise<JwtBundleSource> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (err) {
    throw new UsageError(`--jwt-bundle ${path}: cannot read: ${err instanceof Error ? err.message : String(err)}`);
  }
  let keyCount: number;
  try {
    keyCount = (await importJwtBundleBytes(bytes)).keys.size;
  } catch (err) {
    throw new UsageError(`--jwt-bundle ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (keyCount === 0) throw new UsageError(`--jwt-bundle ${path}: holds no usable JWT-SVID key`);
  return new FileBundleSource({ path, trustDomain: flags.trustDomain, onEvent: flags.onEvent }).start();
}
