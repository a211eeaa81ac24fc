import { SPIFFE_JWT_AUTH_METHOD } from '../oauth/spiffe-client-auth.js';
import { authorizationServerMetadataUrl } from '../oauth/well-known.js';
import { quoted, refused } from './agent-errors.js';
import type { AgentHttp } from './http-exchange.js';
import { exchange } from './http-exchange.js';
import { MetadataDocument } from './metadata-document.js';

/** The members of RFC 8414 authorization server metadata the agent uses. */
export interface AuthorizationServerMetadata {
  /** Identical to the issuer the metadata URL was built from. */
  readonly issuer: string;
  readonly tokenEndpoint: URL;
}

const STEP = 'authorization_server_metadata';

/**
 * Agent step 3: the chosen issuer's RFC 8414 metadata, from the well-known URL with the issuer's path
 * inserted after the host (§3). §3.3: the document's `issuer` must be identical to the issuer used to
 * build the URL — an exact string comparison, no normalization — or the metadata is not used.
 */
export async function readAuthorizationServerMetadata(
  issuer: string,
  http: AgentHttp,
): Promise<AuthorizationServerMetadata> {
  const url = authorizationServerMetadataUrl(issuer);
  const answer = await exchange(STEP, url, { method: 'GET', headers: { accept: 'application/json' } }, http);
  const document = MetadataDocument.from(STEP, url, answer);
  const echoed = document.string('issuer');
  if (echoed !== issuer) {
    throw refused(STEP, 'issuer_mismatch', `${url.href} names issuer ${quoted(echoed)}, not ${quoted(issuer)}`);
  }
  const tokenEndpoint = document.url('token_endpoint');
  // RFC 8414 §2: when listed, the methods and grants must include the ones this client uses.
  const authMethods = document.optionalStrings('token_endpoint_auth_methods_supported');
  if (authMethods !== undefined && !authMethods.includes(SPIFFE_JWT_AUTH_METHOD)) {
    throw refused(
      STEP,
      'auth_method_unsupported',
      `${issuer} does not list ${SPIFFE_JWT_AUTH_METHOD} client authentication`,
    );
  }
  const grantTypes = document.optionalStrings('grant_types_supported');
  if (grantTypes !== undefined && !grantTypes.includes('client_credentials')) {
    throw refused(STEP, 'grant_type_unsupported', `${issuer} does not list the client_credentials grant`);
  }
  return { issuer, tokenEndpoint };
}
