import { errorMessage } from '@notegate/kit';
import type { BackoffPolicy } from '../../shared/backoff.js';
import { backoffDelayMs } from '../../shared/backoff.js';
import { parseSpiffeId, parseTrustDomain } from '../spiffe-id.js';
import type { StreamHandle, WorkloadApiClient } from '../workload-api/client.js';
import type { WorkloadApiError } from '../workload-api/errors.js';
import type { TrustDomainEntry } from './bundle-state.js';
import { StateBackedBundleSource } from './bundle-state.js';
import { importJwtBundleBytes } from './import-bundle.js';

export interface WorkloadApiBundleSourceOptions {
  readonly client: WorkloadApiClient;
  /** Delay before reopening the stream; reset by every message received. */
  readonly backoff?: BackoffPolicy;
  /** Stream failures (each distinct one once), recoveries, stops and skipped keys, for the operator's log. */
  readonly onEvent?: (message: string) => void;
}

const DEFAULT_STREAM_BACKOFF: BackoffPolicy = { initialMs: 200, maxMs: 5_000 };

/**
 * JWT bundles from the Workload API's FetchJWTBundles stream. Every message replaces the whole state
 * (Workload API §4.3: complete state, no deltas). When the stream ends it is reopened with backoff
 * and the last state keeps serving meanwhile: a stream end is normally an agent restart, and dropping
 * the keys would turn each one into an outage for every caller (go-spiffe's JWTSource does the same).
 * Only InvalidArgument / Unimplemented stop it for good, and then nothing is trusted any more.
 */
export class WorkloadApiBundleSource extends StateBackedBundleSource {
  private readonly client: WorkloadApiClient;
  private readonly backoff: BackoffPolicy;
  private readonly onEvent: (message: string) => void;
  private stream: StreamHandle | null = null;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private attempt = 0;
  /** The last failure reported; a reconnect that fails the same way again is not worth another line. */
  private reportedFailure: string | undefined;
  private updates: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(options: WorkloadApiBundleSourceOptions) {
    super('no JWT bundle received from the Workload API yet');
    this.client = options.client;
    this.backoff = options.backoff ?? DEFAULT_STREAM_BACKOFF;
    this.onEvent = options.onEvent ?? (() => {});
  }

  /** Opens the stream; the first message makes the source ready. */
  start(): this {
    this.open();
    return this;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    this.stream?.cancel();
    this.stream = null;
    await this.updates;
    this.state.close();
  }

  private open(): void {
    this.stream = this.client.watchJwtBundles({
      onBundles: (bundles) => {
        this.attempt = 0;
        if (this.reportedFailure !== undefined) this.onEvent('JWT bundle stream open again');
        this.reportedFailure = undefined;
        // Imports are async; chaining keeps messages applied in the order they arrived.
        this.updates = this.updates
          .then(() => this.apply(bundles))
          .catch((err: unknown) => this.onEvent(`applying a JWT bundle update failed: ${String(err)}`));
      },
      onEnd: (error) => this.reopenAfter(error),
    });
  }

  private async apply(bundles: ReadonlyMap<string, Uint8Array>): Promise<void> {
    const domains = new Map<string, TrustDomainEntry>();
    for (const [key, bytes] of bundles) {
      const trustDomain = trustDomainOfBundleKey(key);
      if (trustDomain === null) {
        this.onEvent(`ignoring JWT bundle under ${JSON.stringify(key)}: not a trust domain`);
        continue;
      }
      try {
        const imported = await importJwtBundleBytes(bytes);
        domains.set(trustDomain, { kind: 'keys', keys: imported.keys });
      } catch (err) {
        const reason = `JWT bundle of ${trustDomain} is invalid: ${errorMessage(err)}`;
        this.onEvent(reason);
        domains.set(trustDomain, { kind: 'invalid', reason });
      }
    }
    if (!this.closed) this.state.replace(domains);
  }

  private reopenAfter(error: WorkloadApiError): void {
    this.stream = null;
    if (this.closed) return;
    if (error.permanent) {
      this.state.markUnavailable(`JWT bundle stream stopped: ${error.message}`);
      this.onEvent(`${error.message}; not retrying`);
      return;
    }
    const delayMs = backoffDelayMs(this.backoff, this.attempt++);
    if (error.message !== this.reportedFailure) {
      this.onEvent(`${error.message}; retrying (at most every ${this.backoff.maxMs / 1000} s) until it answers`);
      this.reportedFailure = error.message;
    }
    this.reconnectTimer = setTimeout(() => this.open(), delayMs);
  }
}

/** Workload API bundle maps are keyed by the trust domain's SPIFFE ID (`spiffe://example.org`); go-spiffe also takes a bare name. */
function trustDomainOfBundleKey(key: string): string | null {
  try {
    if (!key.includes(':/')) return parseTrustDomain(key);
    const id = parseSpiffeId(key);
    return id.path === '' ? id.trustDomain : null;
  } catch {
    return null;
  }
}
