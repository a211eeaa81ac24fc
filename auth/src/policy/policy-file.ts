import { isRecord } from '@notegate/kit';
import { resourceForm } from '../oauth/identifier.js';
import { NOTES_SCOPES } from '../oauth/notes-scopes.js';
import {
  type ConfigFail,
  rejectDuplicates,
  rejectUnknownKeys,
  requiredList,
  requiredString,
} from '../shared/config-file.js';
import { spiffeIdProblem } from '../spiffe/spiffe-id.js';
import { parseTrustDomainFile } from '../spiffe/trust-domain-file.js';
import type { Grant, ResourceGrant } from './policy.js';
import { Policy } from './policy.js';

const GRANT_KEYS = new Set(['spiffe_id', 'resources']);
const RESOURCE_KEYS = new Set(['resource', 'scopes']);

/**
 * docs/protocol.md#policy-file: unknown keys, a SPIFFE ID outside trust_domain or malformed, a
 * duplicate spiffe_id, a resource that is not an absolute http(s) URI or carries a fragment, and a
 * scope that no notes tool has are errors naming the entry (`grants[1].resources[0].scopes[2]`).
 */
export function parsePolicy(text: string, source: string): Policy {
  const {
    trustDomain,
    entries: grants,
    fail,
  } = parseTrustDomainFile(text, { kind: 'policy file', source, listKey: 'grants' }, parseGrant);
  rejectDuplicates(
    grants.map((grant) => grant.spiffeId),
    (index) => `grants[${index}].spiffe_id`,
    fail,
  );
  return new Policy({ trustDomain, grants });
}

function parseGrant(entry: unknown, where: string, trustDomain: string, fail: ConfigFail): Grant {
  if (!isRecord(entry)) throw fail(where, 'must be a mapping with spiffe_id and resources');
  rejectUnknownKeys(entry, GRANT_KEYS, where, fail);
  const spiffeId = requiredString(entry, 'spiffe_id', `${where}.spiffe_id`, fail);
  const spiffeIdError = spiffeIdProblem(spiffeId, trustDomain);
  if (spiffeIdError) throw fail(`${where}.spiffe_id`, spiffeIdError);
  const resources = requiredList(entry, 'resources', `${where}.resources`, fail).map((item: unknown, index) =>
    parseResourceGrant(item, `${where}.resources[${index}]`, fail),
  );
  rejectDuplicates(
    resources.map((item) => item.key),
    (index) => `${where}.resources[${index}].resource`,
    fail,
  );
  return { spiffeId, resources };
}

function parseResourceGrant(entry: unknown, where: string, fail: ConfigFail): ResourceGrant {
  if (!isRecord(entry)) throw fail(where, 'must be a mapping with resource and scopes');
  rejectUnknownKeys(entry, RESOURCE_KEYS, where, fail);
  const resource = requiredString(entry, 'resource', `${where}.resource`, fail);
  // RFC 8707 §2: an absolute URI without a fragment; here http or https, the MCP servers' schemes, in a
  // spelling the resource form can compare (docs/protocol.md#identifiers).
  const form = resourceForm(resource);
  if (!form.ok) throw fail(`${where}.resource`, `'${resource}' ${form.problem} (expected an http(s) URL)`);
  const scopes = requiredList(entry, 'scopes', `${where}.scopes`, fail).map((scope: unknown, index) => {
    // A scope no tool needs would be granted silently and never used: most often a typo of one that is.
    if (typeof scope !== 'string' || !NOTES_SCOPES.includes(scope)) {
      throw fail(
        `${where}.scopes[${index}]`,
        `${JSON.stringify(scope)} is not a notes scope (allowed: ${NOTES_SCOPES.join(', ')})`,
      );
    }
    return scope;
  });
  rejectDuplicates(scopes, (index) => `${where}.scopes[${index}]`, fail);
  return { resource, key: form.value, scopes };
}
