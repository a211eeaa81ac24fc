/**
 * Resources compare after one trailing slash is removed, and the token's `aud` is the resource in
 * this form (docs/protocol.md#policy-file, #access-token).
 */
export function normalizeResource(resource: string): string {
  return resource.endsWith('/') ? resource.slice(0, -1) : resource;
}

/**
 * The resource URI a notes server names itself by, from its --resource URL: the origin as the URL standard
 * writes it (lower-case scheme and host, no default port) and the path without one trailing slash. The
 * protected resource metadata, the token audience and the policy all use this form.
 */
export function canonicalResource(url: URL): string {
  return `${url.origin}${normalizeResource(url.pathname)}`;
}
