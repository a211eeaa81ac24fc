import type { AuditLog } from '../audit/audit-log.js';
import { unverifiedSpiffeId } from '../audit/audit-log.js';
import type { ProtocolError } from '../errors/protocol-error.js';
import { decodeSvid } from '../spiffe/svid/decode.js';
import type { FormParameters } from './token-request.js';

export const AUDIT_COMPONENT = 'authz';

/** How far a request got, for the audit line of its decision. */
export interface RequestTrace {
  form: FormParameters | null;
  /** The assertion's `sub` as read before verification (any type). */
  claimedSub: unknown;
  /** True once the signature verified: `spiffe_id` is then the plain SPIFFE ID. */
  verified: boolean;
  svidJti: string | undefined;
}

export function newTrace(): RequestTrace {
  return { form: null, claimedSub: undefined, verified: false, svidJti: undefined };
}

export interface IssuedTokenRecord {
  readonly spiffeId: string;
  readonly svidJti: string | undefined;
  readonly audience: string;
  readonly scope: string;
  readonly accessTokenJti: string;
  /** allow-reuse-within-lifetime mode: how often this SVID was presented (null when not counted). */
  readonly svidUses?: number | null;
}

/** Allow line: docs/protocol.md#audit-lines puts `svid_jti=<jti>` in the reason; the rest goes to extra fields. */
export function auditAllow(audit: AuditLog, issued: IssuedTokenRecord): void {
  audit.record({
    component: AUDIT_COMPONENT,
    spiffeId: issued.spiffeId,
    tool: null,
    decision: 'allow',
    reason: `issued: svid_jti=${issued.svidJti ?? '-'}`,
    extra: {
      resource: issued.audience,
      scope: issued.scope,
      svid_jti: issued.svidJti ?? null,
      access_token_jti: issued.accessTokenJti,
      ...(issued.svidUses === undefined ? {} : { svid_uses: issued.svidUses }),
    },
  });
}

/**
 * Deny line. `spiffe_id` is the verified ID once the signature checked out, `unverified:<sub>` for
 * a decision taken before (the sub is read from the assertion if no step had decoded it yet), and
 * null when no sub can be read.
 */
export function auditDeny(audit: AuditLog, error: ProtocolError, trace: RequestTrace): void {
  const sub = trace.claimedSub === undefined ? peekSubject(trace.form) : trace.claimedSub;
  const spiffeId = trace.verified && typeof sub === 'string' ? sub : unverifiedSpiffeId(sub);
  audit.record({
    component: AUDIT_COMPONENT,
    spiffeId,
    tool: null,
    decision: 'deny',
    reason: error.auditReason(),
    ...(trace.svidJti === undefined ? {} : { extra: { svid_jti: trace.svidJti } }),
  });
}

/** The unverified `sub` of the one client_assertion sent, for audit only; undefined when there is none to read. */
function peekSubject(form: FormParameters | null): unknown {
  const assertions = form?.get('client_assertion');
  if (assertions?.length !== 1 || assertions[0] === undefined) return undefined;
  try {
    return decodeSvid(assertions[0]).claims.sub;
  } catch {
    return undefined;
  }
}
