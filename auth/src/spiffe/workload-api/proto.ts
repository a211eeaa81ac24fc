import { fileURLToPath } from 'node:url';
import type { MethodDefinition, ServiceDefinition } from '@grpc/proto-loader';
import { loadSync } from '@grpc/proto-loader';

// Resolved from the compiled module (auth/dist/src/spiffe/workload-api/) to auth/proto/, which the package ships.
const PROTO_PATH = fileURLToPath(new URL('../../../../proto/workload.proto', import.meta.url));

/** The three JWT methods of the SPIFFE Workload API, with their protobuf (de)serializers. */
export interface WorkloadApiService {
  readonly definition: ServiceDefinition;
  readonly fetchJwtSvid: MethodDefinition<object, object>;
  readonly fetchJwtBundles: MethodDefinition<object, object>;
  readonly validateJwtSvid: MethodDefinition<object, object>;
}

let cached: WorkloadApiService | undefined;

/** Loads `workload.proto` once per process; field names keep their proto case (`spiffe_id`). */
export function workloadApiService(): WorkloadApiService {
  if (cached) return cached;
  const loaded = loadSync(PROTO_PATH, { keepCase: true, longs: String, defaults: true, oneofs: true });
  const service = loaded.SpiffeWorkloadAPI;
  if (service === undefined || 'format' in service) {
    throw new Error(`${PROTO_PATH} does not define the SpiffeWorkloadAPI service`);
  }
  cached = {
    definition: service,
    fetchJwtSvid: methodOf(service, 'FetchJWTSVID'),
    fetchJwtBundles: methodOf(service, 'FetchJWTBundles'),
    validateJwtSvid: methodOf(service, 'ValidateJWTSVID'),
  };
  return cached;
}

function methodOf(service: ServiceDefinition, name: string): MethodDefinition<object, object> {
  const method = service[name];
  if (method === undefined) throw new Error(`${PROTO_PATH} lacks SpiffeWorkloadAPI.${name}`);
  return method;
}
