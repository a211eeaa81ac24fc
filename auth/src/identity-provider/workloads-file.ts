import { readFile } from 'node:fs/promises';
import { parseDocument } from 'yaml';
import { UsageError } from '../errors/usage-error.js';
import { isRecord } from '../shared/records.js';
import { parseSpiffeId, parseTrustDomain, SpiffeIdError } from '../spiffe/spiffe-id.js';

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
const TOP_LEVEL_KEYS = new Set(['trust_domain', 'workloads']);
const WORKLOAD_KEYS = new Set(['name', 'spiffe_id']);

export async function loadWorkloadsFile(path: string): Promise<WorkloadsConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new UsageError(`--workloads ${path}: cannot read: ${err instanceof Error ? err.message : err}`);
  }
  return parseWorkloads(text, path);
}

/** Validates the workloads file; every error names the file and the entry (`workloads[1].name`). */
export function parseWorkloads(text: string, source: string): WorkloadsConfig {
  const fail = (where: string, why: string) => new UsageError(`workloads file ${source}: ${where}: ${why}`);
  const document = parseDocument(text);
  const [syntaxError] = document.errors;
  if (syntaxError) throw fail('YAML', syntaxError.message.split('\n')[0] ?? 'syntax error');
  const root: unknown = document.toJS();
  if (!isRecord(root)) throw fail('top level', 'must be a mapping with trust_domain and workloads');
  rejectUnknownKeys(root, TOP_LEVEL_KEYS, 'top level', fail);
  const trustDomain = requiredString(root, 'trust_domain', 'trust_domain', fail);
  try {
    parseTrustDomain(trustDomain);
  } catch (err) {
    throw fail('trust_domain', err instanceof Error ? err.message : String(err));
  }
  if (!Array.isArray(root.workloads) || root.workloads.length === 0) {
    throw fail('workloads', 'must be a non-empty list');
  }
  const workloads = root.workloads.map((entry: unknown, index) =>
    parseWorkload(entry, `workloads[${index}]`, trustDomain, fail),
  );
  rejectDuplicates(workloads, 'name', fail);
  rejectDuplicates(workloads, 'spiffeId', fail);
  return { trustDomain, workloads };
}

type Fail = (where: string, why: string) => UsageError;

function parseWorkload(entry: unknown, where: string, trustDomain: string, fail: Fail): Workload {
  if (!isRecord(entry)) throw fail(where, 'must be a mapping with name and spiffe_id');
  rejectUnknownKeys(entry, WORKLOAD_KEYS, where, fail);
  const name = requiredString(entry, 'name', `${where}.name`, fail);
  if (!WORKLOAD_NAME.test(name)) {
    throw fail(`${where}.name`, `'${name}' must match ${WORKLOAD_NAME.source} (it becomes a socket file name)`);
  }
  const spiffeId = requiredString(entry, 'spiffe_id', `${where}.spiffe_id`, fail);
  try {
    if (parseSpiffeId(spiffeId).trustDomain !== trustDomain) {
      throw fail(`${where}.spiffe_id`, `'${spiffeId}' is outside trust_domain ${trustDomain}`);
    }
  } catch (err) {
    if (err instanceof SpiffeIdError) throw fail(`${where}.spiffe_id`, err.message);
    throw err;
  }
  return { name, spiffeId };
}

function requiredString(record: Record<string, unknown>, key: string, where: string, fail: Fail): string {
  const value = record[key];
  if (typeof value !== 'string' || value === '') throw fail(where, 'is required and must be a non-empty string');
  return value;
}

function rejectUnknownKeys(record: Record<string, unknown>, allowed: ReadonlySet<string>, where: string, fail: Fail) {
  const unknown = Object.keys(record).filter((key) => !allowed.has(key));
  if (unknown.length > 0) {
    throw fail(where, `unknown key ${unknown.join(', ')} (allowed: ${[...allowed].join(', ')})`);
  }
}

function rejectDuplicates(workloads: readonly Workload[], field: 'name' | 'spiffeId', fail: Fail): void {
  const seen = new Map<string, number>();
  for (const [index, workload] of workloads.entries()) {
    const first = seen.get(workload[field]);
    const key = field === 'name' ? 'name' : 'spiffe_id';
    if (first !== undefined) {
      throw fail(`workloads[${index}].${key}`, `'${workload[field]}' duplicates workloads[${first}].${key}`);
    }
    seen.set(workload[field], index);
  }
}
