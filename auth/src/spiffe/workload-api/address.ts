import { isIP } from 'node:net';
import { UsageError } from '@notegate/kit/cli';

/** Where the Workload API listens, plus the grpc-js target string that reaches it. */
export type WorkloadApiAddress =
  | { readonly kind: 'unix'; readonly path: string; readonly target: string; readonly display: string }
  | {
      readonly kind: 'tcp';
      readonly host: string;
      readonly port: number;
      readonly target: string;
      readonly display: string;
    };

const EXAMPLE = 'unix:///path/to/socket or tcp://127.0.0.1:8081';

/**
 * Parses a Workload API address by SPIFFE_Workload_Endpoint.md §4: a `unix` URI with an absolute
 * path and nothing else, or a `tcp` URI with an IP literal and a port and nothing else.
 * `source` names where the value came from (a flag or SPIFFE_ENDPOINT_SOCKET) for the error.
 */
export function parseWorkloadApiAddress(value: string, source: string): WorkloadApiAddress {
  const fail = (why: string) => new UsageError(`${source}: '${value}' ${why} (expected ${EXAMPLE})`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw fail('is not a URI');
  }
  if (url.search || value.includes('?')) throw fail('must not have a query');
  if (url.hash || value.includes('#')) throw fail('must not have a fragment');
  if (url.username || url.password) throw fail('must not carry user information');
  if (url.protocol === 'unix:') return unixAddress(url, fail);
  if (url.protocol === 'tcp:') return tcpAddress(url, fail);
  throw fail(`uses the unsupported scheme '${url.protocol.replace(/:$/, '')}'`);
}

function unixAddress(url: URL, fail: (why: string) => UsageError): WorkloadApiAddress {
  // Endpoint §4: a unix URI has no authority, only an absolute path.
  if (url.host) throw fail('must not have an authority (use three slashes: unix:///path)');
  if (!url.pathname.startsWith('/')) throw fail('must have an absolute path');
  const path = decodeURIComponent(url.pathname);
  if (path === '/') throw fail('must name a socket file');
  return { kind: 'unix', path, target: `unix://${path}`, display: `unix://${path}` };
}

function tcpAddress(url: URL, fail: (why: string) => UsageError): WorkloadApiAddress {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host) === 0) throw fail('must use an IP address, not a host name');
  if (url.port === '') throw fail('must have a port');
  if (url.pathname !== '') throw fail('must not have a path');
  const port = Number(url.port);
  const hostPort = isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;
  return { kind: 'tcp', host, port, target: hostPort, display: `tcp://${hostPort}` };
}

/**
 * The explicit address wins; otherwise the `SPIFFE_ENDPOINT_SOCKET` value the caller read from its
 * environment (Endpoint §4: clients MUST fall back to it). Neither is a start-up error.
 */
export function resolveWorkloadApiAddress(options: {
  readonly explicit?: string | undefined;
  readonly explicitSource: string;
  readonly endpointSocketEnv?: string | undefined;
}): WorkloadApiAddress {
  if (options.explicit !== undefined) return parseWorkloadApiAddress(options.explicit, options.explicitSource);
  if (options.endpointSocketEnv !== undefined && options.endpointSocketEnv !== '') {
    return parseWorkloadApiAddress(options.endpointSocketEnv, 'SPIFFE_ENDPOINT_SOCKET');
  }
  throw new UsageError(
    `no Workload API address: pass ${options.explicitSource} unix:///path/to/socket or set SPIFFE_ENDPOINT_SOCKET`,
  );
}
