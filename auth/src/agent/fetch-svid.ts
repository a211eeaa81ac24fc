import { status } from '@grpc/grpc-js';
import { describeThrown } from '@notegate/kit';
import { WorkloadApiError } from '../spiffe/workload-api/errors.js';
import { authenticationFailed, transportFailed } from './agent-errors.js';

/** Where the agent gets its JWT-SVIDs: a `WorkloadApiClient`, or anything with the same method. */
export interface JwtSvidSource {
  fetchJwtSvid(request: { audience: string }): Promise<{ readonly svid: string }>;
}

const STEP = 'svid';

/**
 * Agent step 4: a JWT-SVID whose only audience is the issuer (draft-ietf-oauth-spiffe-client-auth §3.1).
 * PermissionDenied means the Workload API has no identity for this process (authentication); every
 * other failure is the API being unreachable or broken (transport).
 */
export async function fetchSvidFor(source: JwtSvidSource, issuer: string): Promise<string> {
  try {
    return (await source.fetchJwtSvid({ audience: issuer })).svid;
  } catch (err) {
    if (err instanceof WorkloadApiError && err.grpcCode === status.PERMISSION_DENIED) {
      throw authenticationFailed(STEP, 'no_identity', err.message);
    }
    const reason =
      err instanceof WorkloadApiError ? `workload_api_${err.statusName.toLowerCase()}` : 'workload_api_failed';
    throw transportFailed(STEP, reason, describeThrown(err));
  }
}
