/**
 * decisions.md: resources compare after removing one trailing slash; the token's `aud` is the
 * resource in this form (spec: "the requested resource with any trailing slash removed").
 */
export function normalizeResource(resource: string): string {
  return resource.endsWith('/') ? resource.slice(0, -1) : resource;
}
