import type { Command } from '@notegate/kit/cli';
import { EXIT, processIo, UsageError } from '@notegate/kit/cli';
import { NOTES_SCOPES } from '../oauth/notes-scopes.js';
import type { Policy } from '../policy/policy.js';
import { parsePolicy } from '../policy/policy-file.js';
import { readConfigText } from '../shared/config-file.js';

/**
 * `notegate authz check-policy FILE`: the policy as authz would read it at start or on a reload, without
 * starting anything. A problem is the same start-up error (exit 2, naming the entry); a valid file is
 * printed back as the grants it makes.
 */
export function authzCheckPolicyCommand(): Command<Record<string, never>> {
  return {
    name: 'notegate authz check-policy',
    usage: 'notegate authz check-policy FILE',
    summary:
      'Checks a policy file as notegate authz --policy reads it, and prints the grants it makes. Refused, each\n' +
      'naming its entry: unknown keys, malformed SPIFFE IDs or ones outside trust_domain, duplicates, resources no\n' +
      `notes server can have, and scopes other than ${NOTES_SCOPES.join(', ')}. Exit 0 when authz would take it.`,
    options: {},
    acceptsOperands: true,
    async run({ operands }) {
      const [file, extra] = operands;
      if (file === undefined) throw new UsageError('FILE: give the policy file to check');
      if (extra !== undefined) throw new UsageError(`unexpected argument '${extra}' (one policy file at a time)`);
      const policy = parsePolicy(await readConfigText('FILE', file), file);
      processIo.stdout(describePolicy(file, policy));
      return EXIT.ok;
    },
  };
}

/** What the policy grants: per SPIFFE ID, each resource and its scopes. */
export function describePolicy(file: string, policy: Policy): string {
  const { grants } = policy.document;
  const lines = [
    `${file}: valid; trust domain ${policy.trustDomain}, ${grants.length} grant${grants.length === 1 ? '' : 's'}`,
  ];
  for (const grant of grants) {
    lines.push(`  ${grant.spiffeId}`);
    for (const resource of grant.resources) lines.push(`    ${resource.resource}  ${resource.scopes.join(' ')}`);
  }
  return `${lines.join('\n')}\n`;
}
