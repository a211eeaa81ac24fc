import { stringify } from 'yaml';

/** The trust domain and identities of the demo. */
export const TRUST_DOMAIN = 'example.org';
export const AGENT_ID = `spiffe://${TRUST_DOMAIN}/agent`;
export const READER_ID = `spiffe://${TRUST_DOMAIN}/reader`;
const AUTHZ_ID = `spiffe://${TRUST_DOMAIN}/authz`;

/**
 * The demo's workloads: the name is also the socket's file name (`<name>.sock`) of the development
 * identity provider, and SPIRE's registration entries are made from the same list.
 */
export const DEMO_WORKLOADS = [
  { name: 'agent', spiffeId: AGENT_ID },
  { name: 'reader', spiffeId: READER_ID },
  { name: 'authz', spiffeId: AUTHZ_ID },
] as const;
export type WorkloadName = (typeof DEMO_WORKLOADS)[number]['name'];

/** `--workloads FILE` of `notegate identity-provider`. */
export function workloadsYaml(): string {
  return stringify({
    trust_domain: TRUST_DOMAIN,
    workloads: DEMO_WORKLOADS.map(({ name, spiffeId }) => ({ name, spiffe_id: spiffeId })),
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
