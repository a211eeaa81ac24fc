import { LastGoodFile, type LastGoodFileEvents } from '../shared/last-good-file.js';
import type { Policy } from './policy.js';
import { parsePolicy } from './policy-file.js';

/** Where the token endpoint reads the policy in force from, once per request. */
export interface PolicySource {
  current(): Policy;
}

/** A policy that never changes (tests, benchmarks). */
export function fixedPolicy(policy: Policy): PolicySource {
  return { current: () => policy };
}

/** `--policy FILE`: the policy in force, re-read while the server runs. */
export type PolicyFile = LastGoodFile<Policy>;

/**
 * `--policy FILE`, reloaded when the file changes and on `reload()` (SIGHUP), as docs/protocol.md#policy-reload
 * says: a new policy replaces the old one whole, between two requests; an invalid one is refused,
 * the old one stays, and the message names the wrong entry. The trust domain cannot change while
 * the process runs: the JWT bundle source was opened for it.
 */
export function openPolicyFile(options: LastGoodFileEvents): Promise<PolicyFile> {
  const { path } = options;
  return LastGoodFile.open({
    ...options,
    flag: '--policy',
    secret: false,
    parse: (text, current: Policy | undefined) => {
      const policy = parsePolicy(text, path);
      if (current && policy.trustDomain !== current.trustDomain) {
        throw new Error(
          `trust_domain: '${policy.trustDomain}' differs from '${current.trustDomain}' in force; changing it needs a restart`,
        );
      }
      return policy;
    },
    describeTaken: (policy) => `policy reloaded from ${path} (${policy.document.grants.length} grants)`,
    describeRefused: (problem) => `policy reload refused, the previous policy stays in force: ${problem}`,
  });
}
