import type { ClientReadableStream } from '@grpc/grpc-js';
import { Client, credentials, Metadata, status } from '@grpc/grpc-js';
import type { MethodDefinition } from '@grpc/proto-loader';
import { decodeJwt } from 'jose';
import type { BackoffPolicy } from '../../shared/backoff.js';
import { backoffDelayMs, sleep } from '../../shared/backoff.js';
import type { WorkloadApiAddress } from './address.js';
import { describeFailure, toWorkloadApiError, WorkloadApiError } from './errors.js';
import type { ValidatedJwtSvid } from './messages.js';
import { parseJwtBundlesResponse, parseJwtSvidResponse, parseValidateJwtSvidResponse } from './messages.js';
import { workloadApiService } from './proto.js';

/** SPIFFE_Workload_Endpoint.md §3: every request carries this metadata, or the server answers InvalidArgument. */
export const SECURITY_HEADER = 'workload.spiffe.io';

export interface UnaryRetryPolicy extends BackoffPolicy {
  /** Attempts in total, the first one included. */
  readonly maxAttempts: number;
}

export interface WorkloadApiClientOptions {
  readonly address: WorkloadApiAddress;
  /** Deadline of each unary attempt. */
  readonly callTimeoutMs?: number;
  /** Retries of Unavailable / PermissionDenied on unary calls (Endpoint App. A). */
  readonly retry?: UnaryRetryPolicy;
  /** grpc-js reconnect backoff of the channel; keep it close to the bundle stream's backoff. */
  readonly reconnectBackoff?: { readonly initialMs: number; readonly maxMs: number };
}

const DEFAULT_CALL_TIMEOUT_MS = 5_000;
const DEFAULT_UNARY_RETRY: UnaryRetryPolicy = { initialMs: 100, maxMs: 2_000, maxAttempts: 4 };
const DEFAULT_RECONNECT_BACKOFF = { initialMs: 200, maxMs: 5_000 };

export interface FetchedJwtSvid {
  readonly spiffeId: string;
  /** JWS compact serialization. */
  readonly svid: string;
  readonly hint: string;
  readonly expiresAt: Date;
}

export interface JwtBundlesListener {
  /** Every message is the complete state (Workload API §4.3); key = trust-domain SPIFFE ID, value = JWKS bytes. */
  onBundles(bundles: ReadonlyMap<string, Uint8Array>): void;
  /** The stream is over (server ended it or it failed); not called after `cancel()`. */
  onEnd(error: WorkloadApiError): void;
}

export interface StreamHandle {
  cancel(): void;
}

/** A SPIFFE Workload API client for the JWT RPCs over grpc-js. */
export class WorkloadApiClient {
  readonly address: WorkloadApiAddress;
  private readonly grpc: Client;
  private readonly callTimeoutMs: number;
  private readonly retry: UnaryRetryPolicy;
  private readonly closing = new AbortController();
  private readonly streams = new Set<ClientReadableStream<object>>();

  constructor(options: WorkloadApiClientOptions) {
    this.address = options.address;
    this.callTimeoutMs = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    this.retry = options.retry ?? DEFAULT_UNARY_RETRY;
    const reconnect = options.reconnectBackoff ?? DEFAULT_RECONNECT_BACKOFF;
    this.grpc = new Client(options.address.target, credentials.createInsecure(), {
      'grpc.initial_reconnect_backoff_ms': reconnect.initialMs,
      'grpc.max_reconnect_backoff_ms': reconnect.maxMs,
    });
  }

  /** FetchJWTSVID: one SVID for `audience` (the one for `spiffeId` when given). */
  async fetchJwtSvid(request: { audience: string | readonly string[]; spiffeId?: string }): Promise<FetchedJwtSvid> {
    const service = workloadApiService();
    const audience = typeof request.audience === 'string' ? [request.audience] : [...request.audience];
    const response = await this.unary(service.fetchJwtSvid, { audience, spiffe_id: request.spiffeId ?? '' });
    const entries = parseJwtSvidResponse(response);
    const entry = request.spiffeId ? entries.find((e) => e.spiffeId === request.spiffeId) : entries[0];
    if (!entry) throw this.protocolError('FetchJWTSVID', 'returned no JWT-SVID');
    return { ...entry, expiresAt: this.expiryOf(entry.svid) };
  }

  /** ValidateJWTSVID: the server checks signature and audience and returns the SPIFFE ID and claims. */
  async validateJwtSvid(request: { audience: string; svid: string }): Promise<ValidatedJwtSvid> {
    const response = await this.unary(workloadApiService().validateJwtSvid, request);
    return parseValidateJwtSvidResponse(response);
  }

  /** FetchJWTBundles: one stream; reconnecting is the caller's job (see WorkloadApiBundleSource). */
  watchJwtBundles(listener: JwtBundlesListener): StreamHandle {
    const method = workloadApiService().fetchJwtBundles;
    const stream = this.grpc.makeServerStreamRequest(
      method.path,
      method.requestSerialize,
      method.responseDeserialize,
      {},
      securityMetadata(),
    );
    this.streams.add(stream);
    let cancelled = false;
    stream.on('data', (message: object) => listener.onBundles(parseJwtBundlesResponse(message)));
    // 'status' always follows the end of a stream; 'error' duplicates it for non-OK codes.
    stream.on('error', () => {});
    stream.on('status', ({ code, details }) => {
      this.streams.delete(stream);
      if (cancelled) return;
      const text = code === status.OK ? 'stream ended by the server' : describeFailure(code, details);
      const endCode = code === status.OK ? status.UNAVAILABLE : code;
      listener.onEnd(new WorkloadApiError(endCode, `Workload API FetchJWTBundles at ${this.address.display}: ${text}`));
    });
    return {
      cancel: () => {
        cancelled = true;
        stream.cancel();
      },
    };
  }

  /** Cancels streams and pending retries, then closes the channel. */
  close(): void {
    this.closing.abort(new WorkloadApiError(status.CANCELLED, 'Workload API client closed'));
    for (const stream of this.streams) stream.cancel();
    this.grpc.close();
  }

  private async unary(method: MethodDefinition<object, object>, request: object): Promise<object> {
    const name = method.path.replace('/SpiffeWorkloadAPI/', '');
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.unaryOnce(method, request);
      } catch (err) {
        const error = toWorkloadApiError(err, name, this.address.display);
        if (!error.retryable || attempt + 1 >= this.retry.maxAttempts || this.closing.signal.aborted) throw error;
        await sleep(backoffDelayMs(this.retry, attempt), this.closing.signal);
      }
    }
  }

  private unaryOnce(method: MethodDefinition<object, object>, request: object): Promise<object> {
    return new Promise((resolve, reject) => {
      this.grpc.makeUnaryRequest(
        method.path,
        method.requestSerialize,
        method.responseDeserialize,
        request,
        securityMetadata(),
        { deadline: Date.now() + this.callTimeoutMs },
        (err, response) => (err || response === undefined ? reject(err) : resolve(response)),
      );
    });
  }

  private expiryOf(svid: string): Date {
    try {
      const { exp } = decodeJwt(svid);
      if (typeof exp === 'number') return new Date(exp * 1000);
    } catch {
      // handled below
    }
    throw this.protocolError('FetchJWTSVID', 'returned a JWT-SVID without a readable exp');
  }

  private protocolError(method: string, what: string): WorkloadApiError {
    return new WorkloadApiError(status.INTERNAL, `Workload API ${method} at ${this.address.display} ${what}`);
  }
}

function securityMetadata(): Metadata {
  const metadata = new Metadata();
  metadata.set(SECURITY_HEADER, 'true');
  return metadata;
}
