import { sameResource } from '../oauth/identifier.js';
import { protectedResourceMetadataUrl } from '../oauth/well-known.js';
import { quoted, refused, transportFailed } from './agent-errors.js';
import type { AgentHttp } from './http-exchange.js';
import { exchange } from './http-exchange.js';
import { absoluteHttpUrl, MetadataDocument } from './metadata-document.js';

/** The members of RFC 9728 protected resource metadata the agent uses. */
export interface ProtectedResourceMetadata {
  /** The server's spelling of the resource, the requested one in the resource form. */
  readonly resource: string;
  readonly authorizationServers: readonly string[];
  readonly scopesSupported: readonly string[] | undefined;
}

const STEP = 'protected_resource_metadata';

/**
 * Agent step 1. Reads the metadata from `metadataUrl` when a 401 challenge named one (MCP: use the
 * challenge's resource_metadata when present), otherwise from the RFC 9728 §3.1 well-known URL of the
 * resource (path inserted after the host). Either way RFC 9728 §3.3 applies: the document's `resource`
 * must be the resource the client asked for, or the document is not used — compared in the resource
 * form (docs/protocol.md#identifiers), never by prefix.
 */
export async function readProtectedResourceMetadata(
  resource: string,
  metadataUrl: string | undefined,
  http: AgentHttp,
): Promise<ProtectedResourceMetadata> {
  const url = metadataUrl === undefined ? protectedResourceMetadataUrl(resource) : challengeUrl(metadataUrl);
  const answer = await exchange(STEP, url, { method: 'GET', headers: { accept: 'application/json' } }, http);
  const document = MetadataDocument.from(STEP, url, answer);
  const advertised = document.string('resource');
  if (!sameResource(advertised, resource)) {
    throw refused(STEP, 'resource_mismatch', `${url.href} describes resource ${quoted(advertised)}, not ${resource}`);
  }
  // MCP (2025-11-25 authorization): the metadata MUST list at least one authorization server.
  const authorizationServers = document.optionalStrings('authorization_servers');
  if (authorizationServers === undefined || authorizationServers.length === 0) {
    throw document.malformed('authorization_servers', 'a non-empty array of issuer URLs');
  }
  // MCP: bearer tokens travel in the Authorization header; a resource that refuses it cannot be called.
  const bearerMethods = document.optionalStrings('bearer_methods_supported');
  if (bearerMethods !== undefined && !bearerMethods.includes('header')) {
    throw refused(STEP, 'bearer_method_unsupported', `${url.href} does not accept bearer tokens in a header`);
  }
  return {
    resource: advertised,
    authorizationServers,
    scopesSupported: document.optionalStrings('scopes_supported'),
  };
}

/** A resource_metadata URL from a WWW-Authenticate challenge: an http(s) URL without credentials or fragment. */
function challengeUrl(value: string): URL {
  const url = absoluteHttpUrl(value);
  if (!url) {
    throw transportFailed(STEP, 'malformed_challenge', `resource_metadata ${quoted(value)} is not an http(s) URL`);
  }
  return url;
}
