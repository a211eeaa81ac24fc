import { isRecord } from '@notegate/kit';
import {
  type ConfigFail,
  readConfigText,
  rejectDuplicates,
  rejectUnknownKeys,
  requiredString,
} from '../shared/config-file.js';
import { spiffeIdProblem } from '../spiffe/spiffe-id.js';
import { parseTrustDomainFile } from '../spiffe/trust-domain-file.js';

export interface Workload {
  /** Also the socket's file name (`<name>.sock`), hence the narrow alphabet. */
  readonly name: string;
  readonly spiffeId: string;
}

export interface WorkloadsConfig {
  readonly trustDomain: string;
  readonly workloads: readonly Workload[];
}

/** Names become file names: lowercase, digits, `_` and `-`, no dots (so never `.` or `..`), at most 64. */
const WORKLOAD_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const WORKLOAD_KEYS = new Set(['name', 'spiffe_id']);

export async function loadWorkloadsFile(path: string): Promise<WorkloadsConfig> {
  return parseWorkloads(await readConfigText('--workloads', path), path);
}

/** Validates the workloads file; every error names the file and the entry (`workloads[1].name`). */
export function parseWorkloads(text: string, source: string): WorkloadsConfig {
  const {
    trustDomain,
    entries: workloads,
    fail,
  } = parseTrustDomainFile(text, { kind: 'workloads file', source, listKey: 'workloads' }, parseWorkload);
  rejectDuplicates(
    workloads.map((workload) => workload.name),
    (index) => `workloads[${index}].name`,
    fail,
  );
  rejectDuplicates(
    workloads.map((workload) => workload.spiffeId),
    (index) => `workloads[${index}].spiffe_id`,
    fail,
  );
  return { trustDomain, workloads };
}

function parseWorkload(entry: unknown, where: string, trustDomain: string, fail: ConfigFail): Workload {
  if (!isRecord(entry)) throw fail(where, 'must be a mapping with name and spiffe_id');
  rejectUnknownKeys(entry, WORKLOAD_KEYS, where, fail);
  const name = requiredString(entry, 'name', `${where}.name`, fail);
  if (!WORKLOAD_NAME.test(name)) {
    throw fail(`${where}.name`, `'${name}' must match ${WORKLOAD_NAME.source} (it becomes a socket file name)`);
  }
  const spiffeId = requiredString(entry, 'spiffe_id', `${where}.spiffe_id`, fail);
  const spiffeIdError = spiffeIdProblem(spiffeId, trustDomain);
  if (spiffeIdError) throw fail(`${where}.spiffe_id`, spiffeIdError);
  return { name, spiffeId };
}
