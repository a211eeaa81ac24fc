import { readFile } from 'node:fs/promises';
import { errorMessage, isRecord } from '@notegate/kit';
import { UsageError } from '@notegate/kit/cli';
import { parseDocument } from 'yaml';

/**
 * The checks every notegate config file (policy, workloads, signing keys) makes of its entries: each
 * failure is a start-up error naming the entry by its path (docs/architecture.md#conventions).
 */

/** Builds the start-up error for one entry of a config file (`where` is its path, e.g. `grants[1].spiffe_id`). */
export type ConfigFail = (where: string, why: string) => UsageError;

/** Reads the config file a flag names; an unreadable file is a start-up error naming flag and path. */
export async function readConfigText(flag: string, path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    throw new UsageError(`${flag} ${path}: cannot read: ${errorMessage(err)}`);
  }
}

/**
 * Parses YAML text whose top level must be a mapping. The `yaml` library already refuses duplicate
 * keys; its first error is reported with its own message (which carries line and column).
 */
export function parseYamlMapping(text: string, expected: string, fail: ConfigFail): Record<string, unknown> {
  const document = parseDocument(text);
  const [syntaxError] = document.errors;
  if (syntaxError) throw fail('YAML', syntaxError.message.split('\n')[0] ?? 'syntax error');
  const root: unknown = document.toJS();
  if (!isRecord(root)) throw fail('top level', `must be a mapping with ${expected}`);
  return root;
}

export function requiredString(record: Record<string, unknown>, key: string, where: string, fail: ConfigFail): string {
  const value = record[key];
  if (typeof value !== 'string' || value === '') throw fail(where, 'is required and must be a non-empty string');
  return value;
}

/** A required list with at least one entry. */
export function requiredList(record: Record<string, unknown>, key: string, where: string, fail: ConfigFail): unknown[] {
  const value = record[key];
  if (!Array.isArray(value) || value.length === 0) throw fail(where, 'must be a non-empty list');
  return value;
}

export function rejectUnknownKeys(
  record: Record<string, unknown>,
  allowed: ReadonlySet<string>,
  where: string,
  fail: ConfigFail,
): void {
  const unknown = Object.keys(record).filter((key) => !allowed.has(key));
  if (unknown.length > 0) {
    throw fail(where, `unknown key ${unknown.join(', ')} (allowed: ${[...allowed].join(', ')})`);
  }
}

/**
 * Refuses the second occurrence of a value; `whereOf(index)` names the entry (e.g.
 * `grants[2].spiffe_id`) so the message points at both places.
 */
export function rejectDuplicates(
  values: readonly string[],
  whereOf: (index: number) => string,
  fail: (where: string, why: string) => Error,
): void {
  const seen = new Map<string, number>();
  for (const [index, value] of values.entries()) {
    const first = seen.get(value);
    if (first !== undefined) throw fail(whereOf(index), `'${value}' duplicates ${whereOf(first)}`);
    seen.set(value, index);
  }
}
