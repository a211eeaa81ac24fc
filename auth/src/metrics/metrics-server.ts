import type { Handler, RouteTable } from '@notegate/kit/http';
import { closeServer, createBoundedServer, listen, routeRequests, sendJson } from '@notegate/kit/http';
import type { Registry } from 'prom-client';

const METRICS_PATH = '/metrics';
/** docs/protocol.md#metrics: the metrics listener is on loopback unless asked otherwise. */
export const DEFAULT_METRICS_HOST = '127.0.0.1';

export interface RunningMetricsServer {
  /** The URL of GET /metrics. */
  readonly url: URL;
  close(): Promise<void>;
}

/**
 * GET /metrics in the Prometheus text format, on a listener of its own, never on the service's
 * public one (docs/protocol.md#metrics). Anything else is 404, another method 405.
 */
export async function startMetricsServer(
  registry: Registry,
  host: string,
  port: number,
): Promise<RunningMetricsServer> {
  const scrape: Handler = async (_req, res) => {
    const body = await registry.metrics();
    res.writeHead(200, { 'Content-Type': registry.contentType, 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  };
  const routes: RouteTable = new Map([[METRICS_PATH, { GET: scrape }]]);
  // Bounded like every server of the project (docs/security.md#security-properties).
  const handler = routeRequests(routes, {
    notFound: (_req, res) => sendJson(res, 404, { error: 'not_found' }),
    methodNotAllowed: (_req, res) => sendJson(res, 405, { error: 'method_not_allowed' }),
    failed: (_req, res) => sendJson(res, 500, { error: 'server_error' }),
  });
  const server = createBoundedServer(handler, { busyBody: { error: 'server_busy' } });
  const base = await listen(server, host, port);
  return { url: new URL(METRICS_PATH, base), close: () => closeServer(server) };
}
