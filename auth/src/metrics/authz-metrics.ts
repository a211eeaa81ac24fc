import { Counter, Gauge, Histogram } from 'prom-client';
import { ServiceMetrics } from './service-metrics.js';

/** A replay store round trip: microseconds in memory, a fraction of a millisecond to Redis, up to its time bound. */
const STORE_BUCKETS_S = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.5];

/** What the metrics read from a replay store (structurally the token service's ReplayStore). */
export interface MeasuredReplayStore {
  readonly kind: string;
  readonly capacity: number;
  liveEntries(): Promise<number>;
}

export type ReloadedFile = 'policy' | 'signing_keys';

/** The token service's metrics (docs/protocol.md#metrics): the common ones, the replay store and reloads. */
export class AuthzMetrics extends ServiceMetrics {
  constructor() {
    super({ timed: 'POST /token' });
  }

  readonly #storeSeconds = new Histogram({
    name: 'notegate_replay_store_duration_seconds',
    help: 'Time of one replay store operation (recording an assertion), failures included.',
    buckets: STORE_BUCKETS_S,
    registers: [this.registry],
  });
  readonly #storeErrors = new Counter({
    name: 'notegate_replay_store_errors_total',
    help: 'Replay store operations that failed: unreachable, timeout (no answer in time) or error (an error reply).',
    labelNames: ['store', 'failure'],
    registers: [this.registry],
  });
  readonly #reloads = new Counter({
    name: 'notegate_config_reloads_total',
    help: 'Reloads of the policy and signing key files after a change: ok (in force) or invalid (the previous one kept).',
    labelNames: ['file', 'result'],
    registers: [this.registry],
  });

  /** Registers the gauges of `store` (read at each scrape) and returns the observer of its operations. */
  replayStore(store: MeasuredReplayStore) {
    const labels = { store: store.kind };
    new Gauge({
      name: 'notegate_replay_store_capacity',
      help: 'Live entries the replay store may hold before new assertions get 503.',
      labelNames: ['store'],
      registers: [this.registry],
    }).set(labels, store.capacity);
    new Gauge({
      name: 'notegate_replay_store_live_entries',
      help: 'Entries the replay store holds (no sample when the store cannot be asked).',
      labelNames: ['store'],
      registers: [this.registry],
      async collect() {
        try {
          this.set(labels, await store.liveEntries());
        } catch {
          this.reset();
        }
      },
    });
    return {
      observe: (duration: number, failure: string | null): void => {
        this.#storeSeconds.observe(duration);
        if (failure !== null) this.#storeErrors.inc({ ...labels, failure });
      },
    };
  }

  reload(file: ReloadedFile, result: 'ok' | 'invalid'): void {
    this.#reloads.inc({ file, result });
  }
}
