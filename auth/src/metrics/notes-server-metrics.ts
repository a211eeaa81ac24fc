import { Counter } from 'prom-client';
import { ServiceMetrics } from './service-metrics.js';

/** The notes server's metrics (docs/protocol.md#metrics): the common ones and the key set fetches. */
export class NotesServerMetrics extends ServiceMetrics {
  constructor() {
    super({ timed: 'POST on the MCP endpoint' });
  }

  readonly #keySetFetches = new Counter({
    name: 'notegate_jwks_fetches_total',
    help: 'Fetches of the authorization server key set from --jwks-uri (the first one and every refetch), by result.',
    labelNames: ['result'],
    registers: [this.registry],
  });

  keySetFetched(result: 'ok' | 'failed'): void {
    this.#keySetFetches.inc({ result });
  }
}
