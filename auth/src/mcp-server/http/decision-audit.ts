import { type AuditLog, unverifiedSpiffeId } from '../../audit/audit-log.js';
import type { ProtocolError } from '../../errors/protocol-error.js';
import type { ServiceMetrics } from '../../metrics/service-metrics.js';
import type { AccessTokenClaims } from '../../oauth/access-token.js';
import { extractBearerToken } from '../bearer/extract-bearer-token.js';
import { unverifiedSubject } from '../bearer/token-header.js';
import type { VerificationWitness } from '../bearer/verify-access-token.js';

/** What is known about a request when its decision is taken. */
export interface DecisionTrail extends VerificationWitness {
  readonly authorization: string | undefined;
  method: string | undefined;
  tool: string | null;
  /** The scope the named tool needs, once the tool is known. */
  scope: string | undefined;
  claims: AccessTokenClaims | undefined;
}

export function newTrail(authorization: string | undefined): DecisionTrail {
  return {
    authorization,
    method: undefined,
    tool: null,
    scope: undefined,
    claims: undefined,
    signedSubject: undefined,
  };
}

/** One audit line per decision of the MCP endpoint, component `mcp_server:<name>`, each also counted in the metrics. */
export class DecisionAudit {
  readonly #log: AuditLog;
  readonly #component: string;
  readonly #metrics: ServiceMetrics | undefined;

  constructor(log: AuditLog, serverName: string, metrics?: ServiceMetrics) {
    this.#log = log;
    this.#component = `mcp_server:${serverName}`;
    this.#metrics = metrics;
  }

  allow(trail: DecisionTrail, claims: AccessTokenClaims, status: number): void {
    const what =
      trail.tool === null ? (trail.method ?? 'request') : `${trail.method} ${trail.tool} with ${trail.scope}`;
    this.#log.record({
      component: this.#component,
      spiffeId: claims.sub,
      tool: trail.tool,
      decision: 'allow',
      reason: `allowed: access granted (${what})`,
      extra: { method: trail.method, status, token_jti: claims.jti ?? null },
    });
    this.#metrics?.decision(this.#component, 'allow', 'allowed');
  }

  deny(trail: DecisionTrail, error: ProtocolError): void {
    this.#log.record({
      component: this.#component,
      spiffeId: spiffeIdOf(trail),
      tool: trail.tool,
      decision: 'deny',
      reason: error.auditReason(),
      extra: { method: trail.method ?? null, status: error.status },
    });
    this.#metrics?.decision(this.#component, 'deny', error.reasonCode);
  }
}

/**
 * The verified sub once the signature checked out; `unverified:<sub>` for
 * decisions taken before that (read from the token without trusting it);
 * null without a readable token.
 */
function spiffeIdOf(trail: DecisionTrail): string | null {
  if (trail.claims) return trail.claims.sub;
  if (trail.signedSubject !== undefined) return trail.signedSubject;
  if (trail.authorization === undefined) return null;
  let sub: string | undefined;
  try {
    sub = unverifiedSubject(extractBearerToken(trail.authorization));
  } catch {
    return null;
  }
  return sub === undefined ? null : unverifiedSpiffeId(sub);
}
