import { UsageError } from '@notegate/kit/cli';
import { normalizeResource } from '../../oauth/resource.js';
import { protectedResourceMetadataUrl } from '../../oauth/well-known.js';

/** The server's names for itself, all derived once from --resource. */
export interface ResourceIdentity {
  /** Canonical resource URI: origin plus path without trailing slash (token aud, PRM resource). */
  readonly resource: string;
  /** Where the MCP endpoint listens. */
  readonly endpointPath: string;
  /** Our own origin, the only Origin header value accepted. */
  readonly origin: string;
  /** RFC 9728 §3.1: the well-known suffix inserted between host and path. */
  readonly metadataPath: string;
  readonly metadataUrl: string;
}

/** Derives the identity; a query string is refused (RFC 8707 §2: a resource SHOULD NOT have one). */
export function resourceIdentity(url: URL): ResourceIdentity {
  if (url.search !== '') throw new UsageError(`--resource: '${url.href}' must not have a query string`);
  const path = normalizeResource(url.pathname);
  const metadata = protectedResourceMetadataUrl(url);
  return {
    resource: `${url.origin}${path}`,
    endpointPath: path === '' ? '/' : path,
    origin: url.origin,
    metadataPath: metadata.pathname,
    metadataUrl: metadata.href,
  };
}

/** RFC 9728 §2 protected resource metadata. */
export interface ProtectedResourceMetadata {
  readonly resource: string;
  readonly authorization_servers: readonly string[];
  readonly scopes_supported: readonly string[];
  readonly bearer_methods_supported: readonly string[];
  readonly resource_name: string;
}

export function protectedResourceMetadata(
  identity: ResourceIdentity,
  issuer: string,
  scopes: readonly string[],
  name: string,
): ProtectedResourceMetadata {
  return {
    resource: identity.resource,
    authorization_servers: [issuer],
    scopes_supported: scopes,
    // MCP: bearer tokens travel in the Authorization header only.
    bearer_methods_supported: ['header'],
    resource_name: `notegate notes server ${name}`,
  };
}
