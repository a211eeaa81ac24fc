import { isRecord } from '@notegate/kit';
import { NOTES_SCOPES } from '../oauth/notes-scopes.js';
import { normalizeResource } from '../oauth/resource.js';
import { spiffeIdProblem } from '../spiffe/spiffe-id.js';
import type { ConfigFail } from '../spiffe/trust-domain-file.js';
import {
  parseTrustDomainFile,
  rejectDuplicates,
  rejectUnknownKeys,
  requiredList,
  requiredString,
} from '../spiffe/trust-domain-file.js';
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
    resources.map((item) => normalizeResource(item.resource)),
    (index) => `${where}.resources[${index}].resource`,
    fail,
  );
  return { spiffeId, resources };
}

function parseResourceGrant(entry: unknown, where: string, fail: ConfigFail): ResourceGrant {
  if (!isRecord(entry)) throw fail(where, 'must be a mapping with resource and scopes');
  rejectUnknownKeys(entry, RESOURCE_KEYS, where, fail);
  const resource = requiredString(entry, 'resource', `${where}.resource`, fail);
  checkResource(resource, `${where}.resource`, fail);
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
  return { resource, scopes };
}

/** RFC 8707 §2: an absolute URI without a fragment; here http or https, the MCP servers' schemes. */
function checkResource(resource: string, where: string, fail: ConfigFail): void {
  if (!/^https?:\/\//i.test(resource) || !URL.canParse(resource)) {
    throw fail(where, `'${resource}' is not an absolute http:// or https:// URI`);
  }
  if (resource.includes('#')) throw fail(where, `'${resource}' must not carry a fragment`);
  // One trailing slash is ignored when comparing; a second would make the token audience end in '/'.
  if (resource.endsWith('//')) throw fail(where, `'${resource}' must not end with more than one '/'`);
}
