/** Public entry point of @notegate/auth. */
export type { SpiffeId, SpiffeIdRule } from './spiffe/spiffe-id.js';
export { parseSpiffeId, parseTrustDomain, SpiffeIdError } from './spiffe/spiffe-id.js';
