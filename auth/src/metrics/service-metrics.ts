import type { ServerResponse } from 'node:http';
import { Counter, Histogram, Registry } from 'prom-client';

/** Request durations from well under a millisecond (a cached key set) to the slow end of a token request. */
const REQUEST_BUCKETS_S = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** Labels of the decision counter: who decided, allow or deny, and the stable reason code. */
export type DecisionLabels = 'component' | 'decision' | 'reason';

export interface ServiceMetricsOptions {
  /** What the request histogram times: the server's main endpoint (`POST /token`, the MCP endpoint). */
  readonly timed: string;
}

/**
 * The metrics every notegate server exposes (docs/protocol.md#metrics), in a registry of its own: a
 * process that runs several servers (the tests do) keeps their numbers apart. The decision counter
 * and the request histogram are here; each server adds its own families to `registry`. prom-client's
 * default process collectors are left out: they cost the token service about 4% of its CPU (its GC
 * observer sees every scavenge), and process metrics are the platform's to collect.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  readonly #decisions: Counter<DecisionLabels>;
  readonly #requestSeconds: Histogram;

  constructor(options: ServiceMetricsOptions) {
    this.#decisions = new Counter({
      name: 'notegate_decisions_total',
      help: 'Allow and deny decisions, as in the audit lines, by component, decision and reason code.',
      labelNames: ['component', 'decision', 'reason'],
      registers: [this.registry],
    });
    this.#requestSeconds = new Histogram({
      name: 'notegate_request_duration_seconds',
      help: `Time from the request to the end of its response, for ${options.timed}.`,
      buckets: REQUEST_BUCKETS_S,
      registers: [this.registry],
    });
  }

  /** One decision; `reason` is a bounded code (`issued`, `svid_replayed`, …), never client text. */
  decision(component: string, decision: 'allow' | 'deny', reason: string): void {
    this.#decisions.inc({ component, decision, reason });
  }

  /** Times `res` from now until it is finished or aborted. */
  timeResponse(res: ServerResponse): void {
    const stop = this.#requestSeconds.startTimer();
    res.once('close', () => stop());
  }
}
