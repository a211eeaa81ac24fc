import { stringify } from 'yaml';

/** The identities of the demo, each served on its own socket by the development identity provider. */
export const TRUST_DOMAIN = 'example.org';
export const AGENT_ID = `spiffe://${TRUST_DOMAIN}/agent`;
export const READER_ID = `spiffe://${TRUST_DOMAIN}/reader`;
const AUTHZ_ID = `spiffe://${TRUST_DOMAIN}/authz`;

/** Workload name → SPIFFE ID; the name is also the socket's file name (`<name>.sock`). */
const WORKLOADS = { agent: AGENT_ID, reader: READER_ID, authz: AUTHZ_ID } as const;
export type WorkloadName = keyof typeof WORKLOADS;

/** `--workloads FILE` of `notegate identity-provider`. */
export function workloadsYaml(): string {
  return stringify({
    trust_domain: TRUST_DOMAIN,
    workloads: Object.entries(WORKLOADS).map(([name, spiffeId]) => ({ name, spiffe_id: spiffeId })),
  });
}

/**
 * `--policy FILE` of `notegate authz`: the agent may read and write notes-a and read notes-b; the
 * reader may only read notes-a. authz itself needs no grant (it only reads bundles).
 */
export function policyYaml(resources: { readonly notesA: string; readonly notesB: string }): string {
  return stringify({
    trust_domain: TRUST_DOMAIN,
    grants: [
      {
        spiffe_id: AGENT_ID,
        resources: [
          { resource: resources.notesA, scopes: ['notes:read', 'notes:write'] },
          { resource: resources.notesB, scopes: ['notes:read'] },
        ],
      },
      { spiffe_id: READER_ID, resources: [{ resource: resources.notesA, scopes: ['notes:read'] }] },
    ],
  });
}
