import type {
  ServerUnaryCall,
  ServerWritableStream,
  ServiceError,
  sendUnaryData,
  UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { Metadata, status } from '@grpc/grpc-js';
import { parseSpiffeId, SpiffeIdError } from '../spiffe/spiffe-id.js';
import { SvidError } from '../spiffe/svid/svid-error.js';
import { SECURITY_HEADER } from '../spiffe/workload-api/client.js';
import { requestString, requestStrings } from '../spiffe/workload-api/messages.js';
import { toProtoStruct } from '../spiffe/workload-api/struct.js';
import type { Workload } from './workloads-file.js';

export interface BundleSubscriber {
  send(message: object): void;
  end(): void;
}

/** What one workload's socket needs from the provider. */
export interface WorkloadServiceContext {
  mintSvid(spiffeId: string, audience: readonly string[]): Promise<string>;
  /** Sends the current bundle at once and on every change until unsubscribed; `end` closes the stream on stop. */
  subscribeBundles(subscriber: BundleSubscriber): () => void;
  validateSvid(svid: string, audience: string): Promise<{ spiffeId: string; claims: Record<string, unknown> }>;
  /** An unexpected failure; the caller only sees a fixed INTERNAL error. */
  reportError(err: unknown): void;
}

/**
 * The Workload API as served on one workload's socket. Connecting to the socket is the attestation,
 * so every call on it speaks for `workload` only.
 */
export function workloadService(workload: Workload, context: WorkloadServiceContext): UntypedServiceImplementation {
  return {
    FetchJWTSVID: (call: ServerUnaryCall<object, object>, callback: sendUnaryData<object>) => {
      respond(context, callback, async () => {
        requireSecurityHeader(call.metadata);
        // SPIRE drops empty audience values, then requires at least one.
        const audience = requestStrings(call.request, 'audience').filter((value) => value !== '');
        if (audience.length === 0) throw grpcError(status.INVALID_ARGUMENT, 'audience must be specified');
        requireOwnIdentity(workload, requestString(call.request, 'spiffe_id'));
        const svid = await context.mintSvid(workload.spiffeId, audience);
        return { svids: [{ spiffe_id: workload.spiffeId, svid, hint: '' }] };
      });
    },
    FetchJWTBundles: (call: ServerWritableStream<object, object>) => {
      try {
        requireSecurityHeader(call.metadata);
      } catch (err) {
        call.emit('error', err);
        return;
      }
      const unsubscribe = context.subscribeBundles({ send: (message) => call.write(message), end: () => call.end() });
      call.on('cancelled', unsubscribe);
      call.on('close', unsubscribe);
    },
    ValidateJWTSVID: (call: ServerUnaryCall<object, object>, callback: sendUnaryData<object>) => {
      respond(context, callback, async () => {
        requireSecurityHeader(call.metadata);
        const audience = requestString(call.request, 'audience');
        const svid = requestString(call.request, 'svid');
        if (audience === '') throw grpcError(status.INVALID_ARGUMENT, 'audience must be specified');
        if (svid === '') throw grpcError(status.INVALID_ARGUMENT, 'svid must be specified');
        const validated = await context.validateSvid(svid, audience).catch((err: unknown) => {
          if (err instanceof SvidError) throw grpcError(status.INVALID_ARGUMENT, `invalid JWT-SVID: ${err.message}`);
          throw err;
        });
        return { spiffe_id: validated.spiffeId, claims: toProtoStruct(validated.claims) };
      });
    },
  };
}

/** Endpoint §6: a request without exactly `workload.spiffe.io: true` gets InvalidArgument. */
function requireSecurityHeader(metadata: Metadata): void {
  const values = metadata.get(SECURITY_HEADER);
  if (values.length !== 1 || values[0] !== 'true') {
    throw grpcError(status.INVALID_ARGUMENT, 'security header missing from request');
  }
}

/** A caller may ask for a specific identity, but only its own; SPIRE answers PermissionDenied otherwise. */
function requireOwnIdentity(workload: Workload, requested: string): void {
  if (requested === '') return;
  try {
    parseSpiffeId(requested);
  } catch (err) {
    if (err instanceof SpiffeIdError) throw grpcError(status.INVALID_ARGUMENT, err.message);
    throw err;
  }
  if (requested !== workload.spiffeId) throw grpcError(status.PERMISSION_DENIED, 'no identity issued');
}

function respond(
  context: WorkloadServiceContext,
  callback: sendUnaryData<object>,
  handle: () => Promise<object>,
): void {
  handle().then(
    (response) => callback(null, response),
    (err: unknown) => {
      if (isServiceError(err)) return callback(err);
      context.reportError(err);
      callback(grpcError(status.INTERNAL, 'internal error'));
    },
  );
}

function grpcError(code: status, details: string): Partial<ServiceError> & Error {
  return Object.assign(new Error(details), { code, details, metadata: new Metadata() });
}

function isServiceError(err: unknown): err is Partial<ServiceError> & Error {
  return err instanceof Error && 'code' in err && typeof err.code === 'number' && 'details' in err;
}
