/**
 * Well-known metadata locations, shared by the servers (which serve them) and the agent (which
 * builds them from an issuer or a resource it was given).
 */

const AUTHORIZATION_SERVER_METADATA_SUFFIX = 'oauth-authorization-server';
const PROTECTED_RESOURCE_METADATA_SUFFIX = 'oauth-protected-resource';

/**
 * RFC 8414 §3 / RFC 9728 §3: `/.well-known/<suffix>` goes between the host and the path of the
 * identifier, after a terminating `/` of the path is removed; a query stays after it.
 * `https://as.example/t1/` ⇒ `https://as.example/.well-known/oauth-authorization-server/t1`.
 */
function wellKnownUrl(identifier: string | URL, suffix: string): URL {
  const url = new URL(identifier);
  const path = url.pathname.endsWith('/') ? url.pathname.slice(0, -1) : url.pathname;
  const wellKnown = new URL(`/.well-known/${suffix}${path}`, url.origin);
  wellKnown.search = url.search;
  return wellKnown;
}

/** Where an authorization server with this issuer serves its RFC 8414 metadata. */
export function authorizationServerMetadataUrl(issuer: string | URL): URL {
  return wellKnownUrl(issuer, AUTHORIZATION_SERVER_METADATA_SUFFIX);
}

/** Where a protected resource with this identifier serves its RFC 9728 metadata. */
export function protectedResourceMetadataUrl(resource: string | URL): URL {
  return wellKnownUrl(resource, PROTECTED_RESOURCE_METADATA_SUFFIX);
}
