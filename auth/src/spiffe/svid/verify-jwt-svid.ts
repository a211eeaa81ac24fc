import type { Clock } from '../../shared/clock.js';
import { epochSeconds, systemClock } from '../../shared/clock.js';
import type { JwtBundleSource } from '../bundles/jwt-bundle-source.js';
import { checkSvidAudienceIncludes, checkSvidExpiry } from './claims.js';
import { decodeSvid } from './decode.js';
import type { SvidHeader } from './header.js';
import { checkSvidHeader } from './header.js';
import { verifySvidSignature } from './signature.js';
import type { SvidSubject } from './subject.js';
import { svidSubject } from './subject.js';

export interface VerifyJwtSvidOptions {
  readonly bundles: JwtBundleSource;
  /** Refuse subjects outside this trust domain; without it the subject's own trust domain is used. */
  readonly trustDomain?: string;
  /** When given, `aud` must include it (JWT-SVID §3.2). */
  readonly audience?: string;
  readonly clock?: Clock;
  /** Leeway on exp; default 30 s as the token endpoint uses (docs/protocol.md#limits). */
  readonly leewayS?: number;
}

export interface VerifiedJwtSvid {
  readonly header: SvidHeader;
  readonly subject: SvidSubject;
  readonly claims: Record<string, unknown>;
}

export const DEFAULT_SVID_LEEWAY_S = 30;

/**
 * The JWT-SVID standard's validation for simple callers, composed from the same steps the token
 * service runs one by one: decode → header (alg, typ, params, kid) → subject and trust domain →
 * signature by kid → exp → audience. Throws SvidError with the failing rule.
 */
export async function verifyJwtSvid(token: string, options: VerifyJwtSvidOptions): Promise<VerifiedJwtSvid> {
  const decoded = decodeSvid(token);
  const header = checkSvidHeader(decoded.header);
  const subject = svidSubject(decoded.claims, options.trustDomain);
  await verifySvidSignature(token, header, options.bundles.keysFor(subject.trustDomain));
  const nowS = epochSeconds(options.clock ?? systemClock);
  checkSvidExpiry(decoded.claims, nowS, options.leewayS ?? DEFAULT_SVID_LEEWAY_S);
  if (options.audience !== undefined) checkSvidAudienceIncludes(decoded.claims, options.audience);
  return { header, subject, claims: decoded.claims };
}
