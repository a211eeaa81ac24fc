import { UsageError } from '@notegate/kit/cli';
import { FileBundleSource } from '../spiffe/bundles/file-bundle-source.js';
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

/**
 * The file's first read decides: unreadable, invalid or without a key is a start-up error; the keys
 * read are the ones served. Its notes are held until then, so a failed start says its reason once.
 */
async function openBundleFile(path: string, flags: BundleSourceFlags): Promise<JwtBundleSource> {
  const firstReadNotes: string[] = [];
  let onEvent = (message: string): void => {
    firstReadNotes.push(message);
  };
  const source = new FileBundleSource({ path, trustDomain: flags.trustDomain, onEvent: (m) => onEvent(m) }).start();
  const problem =
    (await source.settled()) ??
    (source.keysFor(flags.trustDomain).status === 'ok' ? null : 'holds no usable JWT-SVID key');
  if (problem !== null) {
    await source.close();
    throw new UsageError(`--jwt-bundle ${path}: ${problem}`);
  }
  for (const note of firstReadNotes) flags.onEvent(note);
  onEvent = flags.onEvent;
  return source;
}
