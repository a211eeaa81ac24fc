import { status } from '@grpc/grpc-js';
import { errorMessage } from '@notegate/kit';

/** Endpoint App. A: these codes mean "try again later"; InvalidArgument and Unimplemented never will succeed. */
const RETRYABLE_CODES: ReadonlySet<number> = new Set([status.UNAVAILABLE, status.PERMISSION_DENIED]);
const PERMANENT_CODES: ReadonlySet<number> = new Set([status.INVALID_ARGUMENT, status.UNIMPLEMENTED]);

/** A failed Workload API call, carrying the gRPC status (code and canonical name, e.g. `UNAVAILABLE`). */
export class WorkloadApiError extends Error {
  readonly code = 'ERR_WORKLOAD_API';
  readonly grpcCode: number;
  readonly statusName: string;

  constructor(grpcCode: number, message: string) {
    super(message);
    this.name = 'WorkloadApiError';
    this.grpcCode = grpcCode;
    this.statusName = status[grpcCode] ?? `UNKNOWN_STATUS_${grpcCode}`;
  }

  /** Unary calls retry only these (Unavailable, PermissionDenied). */
  get retryable(): boolean {
    return RETRYABLE_CODES.has(this.grpcCode);
  }

  /** InvalidArgument, Unimplemented: asking again cannot help, so even a stream is not reopened. */
  get permanent(): boolean {
    return PERMANENT_CODES.has(this.grpcCode);
  }
}

interface GrpcErrorLike {
  readonly code: number;
  readonly details: string;
}

function isGrpcError(err: unknown): err is GrpcErrorLike {
  return (
    err instanceof Error &&
    'code' in err &&
    typeof err.code === 'number' &&
    'details' in err &&
    typeof err.details === 'string'
  );
}

/** What a connection error on the Workload API's endpoint means for the operator. */
const CONNECT_ERRORS: Readonly<Record<string, string>> = {
  ENOENT:
    'no socket at that path; start the SPIRE agent or notegate identity-provider that serves it, or fix the address',
  ECONNREFUSED: 'nothing accepts connections there (the server that served it has stopped)',
  EACCES: 'permission denied (the socket or its folder is not open to this user)',
  ENOTSOCK: 'the path is not a socket',
};

/**
 * A failure's status and details, in words. grpc-js reports an endpoint it cannot reach as UNAVAILABLE with
 * the connection error inside the details ("No connection established. Last error: Error: connect ENOENT
 * /run/agent.sock. Resolution note: "); that becomes "cannot connect: <what it means>".
 */
export function describeFailure(code: number, details: string): string {
  const errno = /\bconnect (E[A-Z]+)\b/.exec(details)?.[1];
  if (code === status.UNAVAILABLE && errno !== undefined) {
    return `cannot connect: ${CONNECT_ERRORS[errno] ?? errno}`;
  }
  return `${status[code] ?? code}: ${details}`;
}

/** Wraps whatever grpc-js threw into a WorkloadApiError whose message names the call and the endpoint. */
export function toWorkloadApiError(err: unknown, method: string, target: string): WorkloadApiError {
  if (err instanceof WorkloadApiError) return err;
  if (isGrpcError(err)) {
    return new WorkloadApiError(
      err.code,
      `Workload API ${method} at ${target} failed: ${describeFailure(err.code, err.details)}`,
    );
  }
  const text = errorMessage(err);
  return new WorkloadApiError(status.UNKNOWN, `Workload API ${method} at ${target} failed: ${text}`);
}
