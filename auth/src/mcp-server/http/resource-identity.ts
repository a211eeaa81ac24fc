import { UsageError } from '@notegate/kit/cli';
import { requireResourceForm, sameResource } from '../../oauth/identifier.js';
import { protectedResourceMetadataUrl } from '../../oauth/well-known.js';

/** The server's names for itself, all derived once from --resource. */
export interface ResourceIdentity {
  /** Its own name: --resource in the resource form (docs/protocol.md#identifiers), the token aud and PRM resource. */
  readonly resource: string;
  /** Where the MCP endpoint listens. */
  readonly endpointPath: string;
  /** Our own origin, the only Origin header value accepted. */
  readonly origin: string;
  /** RFC 9728 §3.1: the well-known suffix inserted between host and path. */
  readonly metadataPath: string;
  readonly metadataUrl: string;
}

/**
 * Derives the identity from --resource: its resource form is the server's name. A query string is
 * refused (RFC 8707 §2: a resource SHOULD NOT have one), and so is a name HTTP clients would spell
 * otherwise (dot segments, an abbreviated IPv4 address): clients reach the endpoint by the WHATWG
 * spelling of the name, which must be the name itself.
 */
export function resourceIdentity(resourceFlag: string): ResourceIdentity {
  const resource = requireResourceForm(resourceFlag, '--resource');
  const url = new URL(resource);
  if (!sameResource(url.href, resource)) {
    throw new UsageError(
      `--resource: '${resourceFlag}' is spelled '${url.href}' by HTTP clients; give the resource in that spelling`,
    );
  }
  const metadata = protectedResourceMetadataUrl(url);
  return {
    resource,
    endpointPath: url.pathname,
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
