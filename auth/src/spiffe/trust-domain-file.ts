import { UsageError } from '@notegate/kit/cli';
import {
  type ConfigFail,
  parseYamlMapping,
  rejectUnknownKeys,
  requiredList,
  requiredString,
} from '../shared/config-file.js';
import { trustDomainProblem } from './spiffe-id.js';

/** A parsed notegate config file: its trust domain and its entries, plus `fail` for checks across entries. */
export interface TrustDomainFile<Entry> {
  readonly trustDomain: string;
  readonly entries: Entry[];
  readonly fail: ConfigFail;
}

/**
 * The shape every notegate config file has: a mapping of exactly `trust_domain` and one non-empty
 * list under `listKey`, each entry parsed by `parseEntry` with its path (`grants[1]`) for errors.
 * Errors read `<kind> <source>: <where>: <why>`.
 */
export function parseTrustDomainFile<Entry>(
  text: string,
  file: { readonly kind: string; readonly source: string; readonly listKey: string },
  parseEntry: (entry: unknown, where: string, trustDomain: string, fail: ConfigFail) => Entry,
): TrustDomainFile<Entry> {
  const { kind, source, listKey } = file;
  const fail: ConfigFail = (where, why) => new UsageError(`${kind} ${source}: ${where}: ${why}`);
  const root = parseYamlMapping(text, `trust_domain and ${listKey}`, fail);
  rejectUnknownKeys(root, new Set(['trust_domain', listKey]), 'top level', fail);
  const trustDomain = requiredTrustDomain(root, fail);
  const entries = requiredList(root, listKey, listKey, fail).map((entry: unknown, index) =>
    parseEntry(entry, `${listKey}[${index}]`, trustDomain, fail),
  );
  return { trustDomain, entries, fail };
}

/** The `trust_domain` key every notegate config file starts with, checked by the SPIFFE rules. */
function requiredTrustDomain(record: Record<string, unknown>, fail: ConfigFail): string {
  const trustDomain = requiredString(record, 'trust_domain', 'trust_domain', fail);
  const problem = trustDomainProblem(trustDomain);
  if (problem) throw fail('trust_domain', problem);
  return trustDomain;
}
