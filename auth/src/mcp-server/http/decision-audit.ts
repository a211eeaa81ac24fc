import { type AuditLog, unverifiedSpiffeId } from '../../audit/audit-log.js';
import type { ProtocolError } from '../../errors/protocol-error.js';
import type { AccessTokenClaims } from '../bearer/claim-checks.js';
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

/** One audit line per decision of the MCP endpoint, component `mcp_server:<name>`. */
export class DecisionAudit {
  readonly #log: AuditLog;
  readonly #component: string;

  constructor(log: AuditLog, serverName: string) {
    this.#log = log;
    this.#component = `mcp_server:${serverName}`;
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
