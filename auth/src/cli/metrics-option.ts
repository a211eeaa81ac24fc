import { parsePort, UsageError } from '@notegate/kit/cli';
import type { RunningMetricsServer } from '../metrics/metrics-server.js';
import { DEFAULT_METRICS_HOST, startMetricsServer } from '../metrics/metrics-server.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';

/** The two flags of the metrics listener, shared by the servers (docs/protocol.md#metrics). */
export const METRICS_OPTIONS = {
  'metrics-port': {
    type: 'string',
    valueName: 'PORT',
    defaultText: 'none: no metrics listener',
    description: 'Serve GET /metrics (Prometheus text format) on a listener of its own on this port; 0 picks one.',
  },
  'metrics-host': {
    type: 'string',
    valueName: 'HOST',
    default: DEFAULT_METRICS_HOST,
    description: 'Address of the metrics listener; loopback unless another address is given.',
  },
} as const;

export interface MetricsAddress {
  readonly host: string;
  readonly port: number;
}

/** The metrics listener's address, or null when `--metrics-port` is not given. */
export function parseMetricsAddress(values: {
  readonly 'metrics-port': string | undefined;
  readonly 'metrics-host': string;
}): MetricsAddress | null {
  const port = values['metrics-port'];
  return port === undefined ? null : { host: values['metrics-host'], port: parsePort('--metrics-port', port) };
}

/** Starts the listener when asked; says where it is on the operator's log. */
export async function startMetricsListener(
  metrics: ServiceMetrics,
  address: MetricsAddress | null,
  log: (message: string) => void,
): Promise<RunningMetricsServer | null> {
  if (address === null) return null;
  const { host, port } = address;
  const running = await startMetricsServer(metrics.registry, host, port).catch((err: NodeJS.ErrnoException) => {
    throw new UsageError(
      `--metrics-host/--metrics-port: cannot listen on ${host}:${port} (${err.code ?? err.message})`,
    );
  });
  log(`metrics on ${running.url.href}`);
  return running;
}
