import { UsageError } from '@notegate/kit/cli';

/**
 * The one room of "the same issuer" and "the same resource" (docs/protocol.md#identifiers): the two
 * comparison forms, and nothing else anywhere decides whether two spellings name one server.
 */

/**
 * RFC 3986 §3 split of an absolute URI with an authority: scheme, authority, path, query, fragment.
 * Deliberately not WHATWG `new URL()`, which also resolves dot segments, re-encodes characters and
 * rewrites IPv4 forms: the comparison must be exact except for the rules stated in the docs.
 */
const URI_PARTS = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$/;
/** Printable ASCII without space: anything else is not a URI (RFC 3986 §2). */
const URI_CHARACTERS = /^[\x21-\x7e]+$/;
/** host [ ":" port ], host a bracketed IP literal or a reg-name / IPv4 address (RFC 3986 §3.2.2). */
const AUTHORITY = /^(\[[0-9A-Za-z:.]+\]|[A-Za-z0-9\-._~%!$&'()*+,;=]+)(?::([0-9]*))?$/;
const DEFAULT_PORTS: Readonly<Record<string, number>> = { http: 80, https: 443 };

export type IdentifierForm =
  | { readonly ok: true; readonly value: string }
  | { readonly ok: false; readonly problem: string };

/**
 * The issuer form (docs/protocol.md#identifiers): scheme and host lowercased, the default port dropped
 * (80 for http, 443 for https; other ports compared as numbers), an empty path mapped to `/`. Nothing
 * else changes, so `/t` and `/t/` stay different and a prefix never matches. Userinfo, a query or a
 * fragment make the identifier unusable (RFC 8414 §2: an issuer has no query or fragment; credentials
 * have no place in an identifier).
 */
export function issuerForm(value: string): IdentifierForm {
  if (!URI_CHARACTERS.test(value)) return fail('is not an ASCII URI without spaces');
  const parts = URI_PARTS.exec(value);
  if (!parts) return fail('is not an absolute URI with an authority');
  const [, scheme = '', authority = '', path = '', query, fragment] = parts;
  const lowerScheme = scheme.toLowerCase();
  const defaultPort = DEFAULT_PORTS[lowerScheme];
  if (defaultPort === undefined) return fail('must use http or https');
  if (authority.includes('@')) return fail('must not carry user information');
  if (query !== undefined) return fail('must not have a query string');
  if (fragment !== undefined) return fail('must not have a fragment');
  const hostPort = AUTHORITY.exec(authority);
  if (!hostPort) return fail('has no valid host');
  const [, host = '', port] = hostPort;
  const portNumber = port === undefined || port === '' ? defaultPort : Number(port);
  if (portNumber > 65_535) return fail('has a port out of range');
  const portPart = portNumber === defaultPort ? '' : `:${portNumber}`;
  return { ok: true, value: `${lowerScheme}://${host.toLowerCase()}${portPart}${path === '' ? '/' : path}` };
}

/**
 * The resource form (docs/protocol.md#identifiers): the issuer form with the trailing slash of the path
 * removed (RFC 9068 §2.2 `aud` as the token service writes it: the resource without its trailing slash),
 * so `https://Notes.Example:443/mcp/` is `https://notes.example/mcp`, and a bare origin is the origin
 * without `/`. A path ending in two slashes is unusable: removing one would leave a name that still ends
 * in `/`, and two spellings of one resource would stop comparing equal once formed again.
 */
export function resourceForm(value: string): IdentifierForm {
  const issuer = issuerForm(value);
  if (!issuer.ok) return issuer;
  const formed = issuer.value;
  if (formed.endsWith('//')) return fail("must not end with more than one '/'");
  return { ok: true, value: formed.endsWith('/') ? formed.slice(0, -1) : formed };
}

/** Whether two issuers are the same after `issuerForm`; an unusable one equals nothing. */
export function sameIssuer(a: string, b: string): boolean {
  return same(issuerForm(a), issuerForm(b));
}

/** Whether two resources are the same after `resourceForm`; an unusable one equals nothing. */
export function sameResource(a: string, b: string): boolean {
  return same(resourceForm(a), resourceForm(b));
}

/** The issuer form of a given issuer; a UsageError naming `source` (a flag or option) when it is unusable. */
export function requireIssuerForm(value: string, source: string): string {
  return required(value, issuerForm(value), source);
}

/** The resource form of a given resource; a UsageError naming `source` (a flag or option) when it is unusable. */
export function requireResourceForm(value: string, source: string): string {
  return required(value, resourceForm(value), source);
}

function required(value: string, form: IdentifierForm, source: string): string {
  if (!form.ok) throw new UsageError(`${source}: '${value}' ${form.problem} (expected an http(s) URL)`);
  return form.value;
}

function same(left: IdentifierForm, right: IdentifierForm): boolean {
  return left.ok && right.ok && left.value === right.value;
}

function fail(problem: string): IdentifierForm {
  return { ok: false, problem };
}
