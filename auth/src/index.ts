/** Public entry point of @notegate/auth. */

export type { AgentStep, FailureClass } from './agent/agent-errors.js';
export { AGENT_EXIT, AgentError } from './agent/agent-errors.js';
export type { FetchAccessTokenOptions } from './agent/fetch-access-token.js';
export { fetchAccessToken } from './agent/fetch-access-token.js';
export type { JwtSvidSource } from './agent/fetch-svid.js';
export type { TokenCacheKey } from './agent/token-cache.js';
export { AccessTokenCache } from './agent/token-cache.js';
export type { AccessToken } from './agent/token-request.js';
export type { SpiffeId, SpiffeIdRule } from './spiffe/spiffe-id.js';
export { parseSpiffeId, parseTrustDomain, SpiffeIdError } from './spiffe/spiffe-id.js';
