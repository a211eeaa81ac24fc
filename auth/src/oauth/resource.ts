/**
 * Resources compare after one trailing slash is removed, and the token's `aud` is the resource in
 * this form (docs/protocol.md#policy-file, #access-token).
 */
export function normalizeResource(resource: string): string {
  return resource.endsWith('/') ? resource.slice(0, -1) : resource;
}
