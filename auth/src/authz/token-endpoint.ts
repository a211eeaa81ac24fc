import { describeThrown } from '@notegate/kit';
import type { AuditLog } from '../audit/audit-log.js';
import type { TokenEndpointError } from '../errors/token-endpoint-errors.js';
import { isTokenEndpointError, tokenError } from '../errors/token-endpoint-errors.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import { ACCESS_TOKEN_LIFETIME_S } from '../oauth/access-token.js';
import { SPIFFE_JWT_AUTH_METHOD } from '../oauth/spiffe-client-auth.js';
import type { PolicySource } from '../policy/policy-source.js';
import type { Clock } from '../shared/clock.js';
import { epochSeconds, systemClock } from '../shared/clock.js';
import type { JwtBundleSource } from '../spiffe/bundles/jwt-bundle-source.js';
import { accessTokenClaims, signAccessToken } from './access-token.js';
import { checkAssertionType } from './check-assertion-type.js';
import { checkClientId } from './check-client-id.js';
import { checkGrantType } from './check-grant-type.js';
import { checkJti } from './check-jti.js';
import { checkPolicy } from './check-policy.js';
import type { ReplayMode } from './check-replay.js';
import { checkReplay, replayShareLimit } from './check-replay.js';
import { checkResourceAllowed } from './check-resource-allowed.js';
import { checkResourcePresent } from './check-resource-present.js';
import { checkScope } from './check-scope.js';
import { checkSvidAlgorithm } from './check-svid-algorithm.js';
import { checkSvidAudience } from './check-svid-audience.js';
import { checkSvidClaims } from './check-svid-claims.js';
import { checkSvidLifetime } from './check-svid-lifetime.js';
import { checkSvidSignature } from './check-svid-signature.js';
import { checkSvidSubject } from './check-svid-subject.js';
import { rejectRepeatedParameters } from './reject-repeated-parameters.js';
import type { ReplayStore } from './replay/replay-store.js';
import type { SigningKeySource } from './signing/signing-key.js';
import type { IssuedTokenRecord, RequestTrace } from './token-audit.js';
import { AUDIT_COMPONENT, auditAllow, auditDeny, newTrace } from './token-audit.js';
import type { FormParameters } from './token-request.js';
import { FormEncodingError, formContentTypeProblem, parseForm } from './token-request.js';
import type { TokenResponse } from './token-response.js';
import { clientAuthChallenge, tokenFailure, tokenSuccess } from './token-response.js';

export interface TokenEndpointOptions {
  /** Used exactly as given: metadata, the assertion's `aud`, the token's `iss`. */
  readonly issuer: string;
  /** Read once per request: a reload takes effect between requests, never within one. */
  readonly policy: PolicySource;
  readonly bundles: JwtBundleSource;
  readonly replayMode: ReplayMode;
  readonly replayStore: ReplayStore;
  /** Read once per request: the first key of the set in force signs. */
  readonly signingKeys: SigningKeySource;
  readonly maxSvidLifetimeS: number;
  readonly audit: AuditLog;
  /** Counts every decision (docs/protocol.md#metrics). */
  readonly metrics?: ServiceMetrics;
  readonly clock?: Clock;
  /** Injected by tests that need tokens to expire soon; docs/protocol.md#access-token fixes 300 s. */
  readonly accessTokenLifetimeS?: number;
}

interface IssuedToken extends IssuedTokenRecord {
  readonly accessToken: string;
}

/**
 * POST /token: SPIFFE client authentication and the policy, as docs/protocol.md#client-authentication lists them. Every
 * request ends in exactly one audit line; any refusal is a TokenEndpointError with a fixed
 * description, and anything unexpected becomes a 500 whose detail only the audit line sees.
 */
export class TokenEndpoint {
  readonly #options: TokenEndpointOptions;
  readonly #clock: Clock;
  readonly #challenge: string;
  readonly #lifetimeS: number;

  constructor(options: TokenEndpointOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#lifetimeS = options.accessTokenLifetimeS ?? ACCESS_TOKEN_LIFETIME_S;
    this.#challenge = clientAuthChallenge(SPIFFE_JWT_AUTH_METHOD, options.issuer);
  }

  async respond(contentType: string | undefined, body: Buffer): Promise<TokenResponse> {
    const trace = newTrace();
    try {
      const problem = formContentTypeProblem(contentType);
      if (problem !== null) throw tokenError('ERR_CONTENT_TYPE', problem);
      trace.form = readForm(body);
      const issued = await this.#authorize(trace.form, trace);
      auditAllow(this.#options.audit, issued);
      this.#options.metrics?.decision(AUDIT_COMPONENT, 'allow', 'issued');
      return tokenSuccess(issued.accessToken, issued.scope, this.#lifetimeS);
    } catch (err) {
      return this.refuse(err, trace);
    }
  }

  /** The response and audit line for a refusal; also used by the HTTP layer (body too large). */
  refuse(err: unknown, trace: RequestTrace = newTrace()): TokenResponse {
    const error: TokenEndpointError = isTokenEndpointError(err) ? err : tokenError('ERR_SERVER', describeThrown(err));
    auditDeny(this.#options.audit, error, trace);
    this.#options.metrics?.decision(AUDIT_COMPONENT, 'deny', error.reasonCode);
    return tokenFailure(error, this.#challenge);
  }

  /** The table of docs/protocol.md#client-authentication, one row per line, in order. */
  async #authorize(form: FormParameters, trace: RequestTrace): Promise<IssuedToken> {
    const { issuer, bundles, replayMode, replayStore, maxSvidLifetimeS } = this.#options;
    const policy = this.#options.policy.current();
    checkGrantType(form);
    checkAssertionType(form);
    const request = rejectRepeatedParameters(form);
    const resource = checkResourcePresent(request);
    const svid = checkSvidAlgorithm(request);
    trace.claimedSub = svid.claims.sub;
    const subject = checkSvidSubject(svid.claims, policy.trustDomain);
    await checkSvidSignature(svid, subject, bundles);
    trace.verified = true;
    const nowS = epochSeconds(this.#clock);
    const times = checkSvidClaims(svid.claims, { nowS, jtiRequired: replayMode === 'reject' });
    checkSvidAudience(svid.claims, issuer);
    checkSvidLifetime(times, nowS, maxSvidLifetimeS);
    const jti = checkJti(svid.claims);
    trace.svidJti = jti;
    checkClientId(request, subject);
    const grant = checkPolicy(policy, subject);
    const target = checkResourceAllowed(grant, resource);
    const scope = checkScope(request.scope, target.scopes);
    const shareLimit = replayShareLimit(replayStore.capacity, policy.document.grants.length);
    const svidUses = await checkReplay(replayStore, replayMode, { svid, subject, times, jti }, shareLimit);
    // "Trust bundle fetch fails" (503) is decided inside checkSvidSignature: it is the key lookup.

    const claims = accessTokenClaims({
      issuer,
      spiffeId: subject.id,
      audience: target.audience,
      scope,
      nowS,
      lifetimeS: this.#lifetimeS,
    });
    return {
      accessToken: await signAccessToken(this.#options.signingKeys.current().signing, claims),
      spiffeId: subject.id,
      svidJti: jti,
      audience: target.audience,
      scope,
      accessTokenJti: claims.jti,
      ...(replayMode === 'allow-reuse-within-lifetime' ? { svidUses } : {}),
    };
  }
}

function readForm(body: Buffer): FormParameters {
  try {
    return parseForm(body);
  } catch (err) {
    if (err instanceof FormEncodingError) throw tokenError('ERR_FORM_MALFORMED', err.message);
    throw err;
  }
}
