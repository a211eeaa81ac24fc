/**
 * The access token as both sides know it (docs/protocol.md#access-token): the token service writes it,
 * the notes server verifies it; its header values, lifetime and claims are stated here once.
 */

/** RFC 9068 §2.1: the JWT type of an access token (a media type: RFC 7515 §4.1.9 compares it case-insensitively). */
export const ACCESS_TOKEN_TYP = 'at+jwt';

/** The one signature algorithm of the access tokens. */
export const ACCESS_TOKEN_ALG = 'ES256';

/** docs/protocol.md#limits: an access token lives 300 s, fixed. */
export const ACCESS_TOKEN_LIFETIME_S = 300;

/** The claims the token service writes (RFC 9068 §2.2), in the order of docs/protocol.md#access-token. */
export interface IssuedAccessToken {
  readonly iss: string;
  readonly sub: string;
  readonly client_id: string;
  /** The resource in the resource form (docs/protocol.md#identifiers). */
  readonly aud: string;
  /** Sorted, separated by single spaces. */
  readonly scope: string;
  readonly iat: number;
  readonly exp: number;
  readonly jti: string;
}

/**
 * The claims of a verified access token, typed (docs/protocol.md#bearer-checks): the required ones of
 * RFC 9068 §2.2 that a resource server decides with, the scope as a set, and the optional ones when present.
 */
export interface AccessTokenClaims {
  readonly iss: string;
  readonly sub: string;
  readonly aud: string;
  readonly exp: number;
  readonly iat: number;
  readonly scopes: ReadonlySet<string>;
  readonly clientId: string | undefined;
  readonly jti: string | undefined;
  readonly nbf: number | undefined;
}
