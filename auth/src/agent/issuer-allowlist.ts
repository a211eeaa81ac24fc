import { UsageError } from '@notegate/kit/cli';

/**
 * RFC 3986 §3 split of an absolute URI with an authority: scheme, authority, path, query, fragment.
 * Deliberately not WHATWG `new URL()`, which also resolves dot segments, re-encodes characters and
 * rewrites IPv4 forms: the comparison must be exact except for the three rules below.
 */
const URI_PARTS = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$/;
/** Printable ASCII without space: anything else is not a URI (RFC 3986 §2). */
const URI_CHARACTERS = /^[\x21-\x7e]+$/;
/** host [ ":" port ], host a bracketed IP literal or a reg-name / IPv4 address (RFC 3986 §3.2.2). */
const AUTHORITY = /^(\[[0-9A-Za-z:.]+\]|[A-Za-z0-9\-._~%!$&'()*+,;=]+)(?::([0-9]*))?$/;
const DEFAULT_PORTS: Readonly<Record<string, number>> = { http: 80, https: 443 };

export type IdentifierResult =
  | { readonly ok: true; readonly value: string }
  | { readonly ok: false; readonly problem: string };

/**
 * The comparison form of an issuer or resource identifier (docs/protocol.md#agent-notegate-agent, step 2): scheme and host
 * lowercased, the default port dropped (80 for http, 443 for https; other ports compared as numbers),
 * an empty path mapped to `/`. Nothing else changes, so `/t` and `/t/` stay different and a prefix
 * never matches. Userinfo, a query or a fragment make the identifier unusable (RFC 8414 §2: an issuer
 * has no query or fragment; credentials have no place in an identifier).
 */
export function normalizeIdentifier(value: string): IdentifierResult {
  if (!URI_CHARACTERS.test(value)) return fail('is not an ASCII URI without spaces');
  const parts = URI_PARTS.exec(value);
  if (!parts) return fail('is not an absolute URI with an authority');
  const [, scheme = '', authority = '', path = '', query, fragment] = parts;
  const lowerScheme = scheme.toLowerCase();
  const defaultPort = DEFAULT_PORTS[lowerScheme];
  if (defaultPort === undefined) return fail('must use http or https');
  if (authority.includes('@')) return fail('must not carry user information');
  if (query !== undefined) return fail('must not have a query');
  if (fragment !== undefined) return fail('must not have a fragment');
  const hostPort = AUTHORITY.exec(authority);
  if (!hostPort) return fail('has no valid host');
  const [, host = '', port] = hostPort;
  const portNumber = port === undefined || port === '' ? defaultPort : Number(port);
  if (portNumber > 65_535) return fail('has a port out of range');
  const portPart = portNumber === defaultPort ? '' : `:${portNumber}`;
  return { ok: true, value: `${lowerScheme}://${host.toLowerCase()}${portPart}${path === '' ? '/' : path}` };
}

function fail(problem: string): IdentifierResult {
  return { ok: false, problem };
}

/** `value` when it is a usable identifier; otherwise a UsageError naming `source` (a flag or option). */
export function requireIdentifier(value: string, source: string): string {
  requireNormalizedIdentifier(value, source);
  return value;
}

/** The comparison form of `value`; a UsageError naming `source` when it is not a usable identifier. */
function requireNormalizedIdentifier(value: string, source: string): string {
  const result = normalizeIdentifier(value);
  if (!result.ok) throw new UsageError(`${source}: '${value}' ${result.problem} (expected an http(s) URL)`);
  return result.value;
}

/** Whether two identifiers are the same after `normalizeIdentifier`; an unusable one equals nothing. */
export function sameIdentifier(a: string, b: string): boolean {
  const left = normalizeIdentifier(a);
  const right = normalizeIdentifier(b);
  return left.ok && right.ok && left.value === right.value;
}

/** The agent's `--trusted-issuer` allowlist: per process, not per resource (docs/security.md#residual-risks). */
export class IssuerAllowlist {
  /** The entries as given, for messages. */
  readonly entries: readonly string[];
  readonly #normalized: ReadonlySet<string>;

  private constructor(entries: readonly string[], normalized: ReadonlySet<string>) {
    this.entries = entries;
    this.#normalized = normalized;
  }

  /** Validates every entry once; `source` names the flag or option for the error. */
  static parse(values: readonly string[], source: string): IssuerAllowlist {
    if (values.length === 0) throw new UsageError(`${source}: at least one trusted issuer is required`);
    const normalized = values.map((value) => requireNormalizedIdentifier(value, source));
    return new IssuerAllowlist([...values], new Set(normalized));
  }

  isTrusted(issuer: string): boolean {
    const result = normalizeIdentifier(issuer);
    return result.ok && this.#normalized.has(result.value);
  }

  /**
   * docs/protocol.md#agent-notegate-agent, step 2: the FIRST advertised issuer on the allowlist, in the order
   * the metadata lists them.
   */
  firstTrusted(advertised: readonly string[]): string | undefined {
    return advertised.find((issuer) => this.isTrusted(issuer));
  }
}
