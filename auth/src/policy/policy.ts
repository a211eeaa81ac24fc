import { resourceForm } from '../oauth/identifier.js';

/** One resource a workload may get tokens for, with the scopes it may ask for there. */
export interface ResourceGrant {
  /** As written in the policy file. */
  readonly resource: string;
  /** The resource in the resource form (docs/protocol.md#identifiers): what requests are matched against. */
  readonly key: string;
  readonly scopes: readonly string[];
}

export interface Grant {
  readonly spiffeId: string;
  readonly resources: readonly ResourceGrant[];
}

/** The validated content of policy.yaml. */
export interface PolicyDocument {
  readonly trustDomain: string;
  readonly grants: readonly Grant[];
}

/** What one workload may obtain, by resource in the resource form: any equivalent spelling matches. */
export interface ClientGrant {
  readonly spiffeId: string;
  /** The allowed scopes for `resource`, or undefined when the resource is not granted. */
  scopesFor(resource: string): ReadonlySet<string> | undefined;
}

/**
 * The allowlist of SPIFFE ID → resource → scopes, read-only after construction: the document is
 * deep-frozen and the lookup maps are private, so nothing can widen a grant at run time.
 */
export class Policy {
  readonly trustDomain: string;
  readonly document: PolicyDocument;
  readonly #clients: ReadonlyMap<string, ClientGrant>;

  constructor(document: PolicyDocument) {
    this.document = deepFreeze(document);
    this.trustDomain = document.trustDomain;
    this.#clients = new Map(document.grants.map((grant) => [grant.spiffeId, clientGrant(grant)]));
    Object.freeze(this);
  }

  /** The grant of this SPIFFE ID, or undefined when the policy does not name it. */
  grantFor(spiffeId: string): ClientGrant | undefined {
    return this.#clients.get(spiffeId);
  }
}

function clientGrant(grant: Grant): ClientGrant {
  const byResource = new Map(grant.resources.map((entry) => [entry.key, new Set(entry.scopes)] as const));
  return Object.freeze({
    spiffeId: grant.spiffeId,
    scopesFor: (resource: string): ReadonlySet<string> | undefined => {
      const form = resourceForm(resource);
      return form.ok ? byResource.get(form.value) : undefined;
    },
  });
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
