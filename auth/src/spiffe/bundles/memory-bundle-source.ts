import type { TrustDomainEntry } from './bundle-state.js';
import { StateBackedBundleSource } from './bundle-state.js';
import { importJwtBundle } from './import-bundle.js';

/**
 * Bundles held in memory and replaced by the owner: the identity provider validates against its own
 * key ring this way, and tests build exact bundle states with it.
 */
export class MemoryBundleSource extends StateBackedBundleSource {
  constructor() {
    super('no JWT bundle set yet');
  }

  /** Replaces the whole state with these JWK Sets, keyed by trust domain name. Invalid input throws. */
  async set(bundles: ReadonlyMap<string, unknown>): Promise<void> {
    const domains = new Map<string, TrustDomainEntry>();
    for (const [trustDomain, document] of bundles) {
      domains.set(trustDomain, { kind: 'keys', keys: (await importJwtBundle(document)).keys });
    }
    this.state.replace(domains);
  }

  async close(): Promise<void> {
    this.state.close();
  }
}
