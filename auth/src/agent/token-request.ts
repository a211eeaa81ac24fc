import { parseScopeParameter } from '../oauth/scope.js';
import { JWT_SPIFFE_ASSERTION_TYPE } from '../oauth/spiffe-client-auth.js';
import type { Clock } from '../shared/clock.js';
import { AgentError, quoted, transportFailed } from './agent-errors.js';
import type { AgentHttp, HttpAnswer } from './http-exchange.js';
import { exchange, jsonObjectOf } from './http-exchange.js';

/** What `fetchAccessToken` resolves to (`{ accessToken, expiresAt, issuer, scope }`, docs/protocol.md#agent-notegate-agent). */
export interface AccessToken {
  readonly accessToken: string;
  /** Request time plus expires_in: never later than the server's own expiry. */
  readonly expiresAt: Date;
  readonly issuer: string;
  /** Granted scopes (the response's scope, or the requested ones when it omits it, RFC 6749 §5.1). */
  readonly scope: string;
  /** The resource the token is bound to: the only server it is sent to. */
  readonly resource: string;
}

export interface TokenRequest {
  readonly tokenEndpoint: URL;
  readonly issuer: string;
  readonly svid: string;
  readonly resource: string;
  readonly scope: string;
}

const STEP = 'token_request';
/** RFC 6750 §2.1 b64token: what may follow `Bearer ` in a header (and so what a token file may hold). */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * Agent step 5: the client_credentials grant authenticated with the JWT-SVID as a jwt-spiffe client
 * assertion (draft-ietf-oauth-spiffe-client-auth §3), bound to one resource (RFC 8707).
 */
export async function requestAccessToken(request: TokenRequest, http: AgentHttp, clock: Clock): Promise<AccessToken> {
  const form = new URLSearchParams({
    grant_type: 'client_credentials',
    client_assertion_type: JWT_SPIFFE_ASSERTION_TYPE,
    client_assertion: request.svid,
    resource: request.resource,
    scope: request.scope,
  });
  const sentAtMs = clock();
  const answer = await exchange(
    STEP,
    request.tokenEndpoint,
    {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
    },
    http,
  );
  if (answer.status !== 200) throw tokenError(request, answer);
  return parseTokenResponse(request, answer, sentAtMs);
}

/**
 * RFC 6749 §5.1, parsed strictly: access_token a b64token, token_type Bearer (case-insensitive),
 * expires_in a positive integer (the agent needs it to know when to stop using the token), scope
 * well-formed when present.
 */
function parseTokenResponse(request: TokenRequest, answer: HttpAnswer, sentAtMs: number): AccessToken {
  const body = jsonObjectOf(answer);
  const where = `the token response of ${request.tokenEndpoint.href}`;
  const malformed = (why: string) => transportFailed(STEP, 'malformed_token_response', `${where}: ${why}`);
  if (!body) throw malformed('not an application/json object');
  const { access_token, token_type, expires_in, scope } = body;
  if (typeof access_token !== 'string' || !B64TOKEN.test(access_token)) {
    throw malformed('access_token must be a bearer token string');
  }
  if (typeof token_type !== 'string' || token_type.toLowerCase() !== 'bearer') {
    throw malformed(`token_type must be Bearer (${quoted(String(token_type))})`);
  }
  if (typeof expires_in !== 'number' || !Number.isSafeInteger(expires_in) || expires_in <= 0) {
    throw malformed(`expires_in must be a positive integer (${quoted(String(expires_in))})`);
  }
  if (scope !== undefined && (typeof scope !== 'string' || parseScopeParameter(scope) === null)) {
    throw malformed(`scope must be space-separated scope tokens (${quoted(String(scope))})`);
  }
  return {
    accessToken: access_token,
    expiresAt: new Date(sentAtMs + expires_in * 1000),
    issuer: request.issuer,
    scope: typeof scope === 'string' ? scope : request.scope,
    resource: request.resource,
  };
}

/**
 * RFC 6749 §5.2: the OAuth `error` and the HTTP status. 4xx answers are refusals; 5xx and
 * temporarily_unavailable mean "try again later" (transport); an error body that is not OAuth JSON is
 * malformed.
 */
function tokenError(request: TokenRequest, answer: HttpAnswer): AgentError {
  const body = jsonObjectOf(answer);
  const error = body?.error;
  const where = `POST ${request.tokenEndpoint.href}`;
  if (typeof error !== 'string' || error === '') {
    return transportFailed(STEP, `http_${answer.status}`, `${where} answered ${answer.status} without an OAuth error`);
  }
  const description = typeof body?.error_description === 'string' ? `: ${quoted(body.error_description)}` : '';
  const detail = `HTTP ${answer.status} from ${where} (resource ${request.resource}, scope ${quoted(request.scope)})${description}`;
  // RFC 6749 §5.2: error codes are %x20-21 / %x23-5B / %x5D-7E; anything odd is quoted, not trusted as a code.
  const reason = /^[a-z_]{1,64}$/.test(error) ? error : `unrecognized_error ${quoted(error)}`;
  const unavailable = answer.status >= 500 || error === 'temporarily_unavailable';
  return new AgentError(STEP, reason, unavailable ? 'transport' : 'refused', detail);
}
