/**
 * SPIFFE IDs exactly as spiffe/spiffe `standards/SPIFFE-ID.md` §2 defines them, with go-spiffe's
 * strictness (the parser SPIRE uses): only the literal lowercase `spiffe://` prefix, lowercase trust
 * domains, no percent-encoding. Checks run in go-spiffe's order, so a port, userinfo, query or
 * fragment fails as a bad trust-domain or path character.
 */

const SCHEME_PREFIX = 'spiffe://';
/** Ours: SPIFFE-ID §2.3 only says "MUST support up to 2048 bytes"; we refuse longer input to bound work. */
const MAX_SPIFFE_ID_BYTES = 2048;
/** SPIFFE-ID §2.3: the trust domain is an RFC 3986 host, at most 255 bytes. */
const MAX_TRUST_DOMAIN_BYTES = 255;

export type SpiffeIdRule =
  | 'empty'
  | 'too_long'
  | 'scheme'
  | 'trust_domain_missing'
  | 'trust_domain_chars'
  | 'trust_domain_too_long'
  | 'path_chars'
  | 'path_empty_segment'
  | 'path_dot_segment'
  | 'path_trailing_slash';

const RULE_MESSAGES: Readonly<Record<SpiffeIdRule, string>> = {
  empty: 'cannot be empty',
  too_long: `is longer than ${MAX_SPIFFE_ID_BYTES} bytes`,
  scheme: "scheme is missing or invalid (must start with 'spiffe://')",
  trust_domain_missing: 'trust domain is missing',
  trust_domain_chars:
    'trust domain characters are limited to lowercase letters, numbers, dots, dashes, and underscores',
  trust_domain_too_long: `trust domain is longer than ${MAX_TRUST_DOMAIN_BYTES} bytes`,
  path_chars: 'path segment characters are limited to letters, numbers, dots, dashes, and underscores',
  path_empty_segment: 'path cannot contain empty segments',
  path_dot_segment: 'path cannot contain dot segments',
  path_trailing_slash: 'path cannot have a trailing slash',
};

export class SpiffeIdError extends Error {
  readonly code = 'ERR_SPIFFE_ID';
  readonly rule: SpiffeIdRule;

  constructor(rule: SpiffeIdRule, input: string) {
    super(`invalid SPIFFE ID ${JSON.stringify(abbreviate(input))}: ${RULE_MESSAGES[rule]}`);
    this.name = 'SpiffeIdError';
    this.rule = rule;
  }
}

export interface SpiffeId {
  /** Trust domain name, for example `example.org`. */
  readonly trustDomain: string;
  /** Path with its leading slash, or `''` for the trust domain's own ID. */
  readonly path: string;
}

/** Parses and validates a SPIFFE ID; throws SpiffeIdError naming the broken rule. */
export function parseSpiffeId(id: string): SpiffeId {
  if (id.length === 0) throw new SpiffeIdError('empty', id);
  if (Buffer.byteLength(id) > MAX_SPIFFE_ID_BYTES) throw new SpiffeIdError('too_long', id);
  if (!id.startsWith(SCHEME_PREFIX)) throw new SpiffeIdError('scheme', id);
  const rest = id.slice(SCHEME_PREFIX.length);
  const slash = rest.indexOf('/');
  const trustDomain = slash === -1 ? rest : rest.slice(0, slash);
  const path = slash === -1 ? '' : rest.slice(slash);
  const tdRule = trustDomainRule(trustDomain);
  if (tdRule) throw new SpiffeIdError(tdRule, id);
  const pathRule = pathRuleOf(path);
  if (pathRule) throw new SpiffeIdError(pathRule, id);
  return { trustDomain, path };
}

/** Validates a bare trust domain name (`example.org`); throws SpiffeIdError naming the broken rule. */
export function parseTrustDomain(name: string): string {
  const rule = trustDomainRule(name);
  if (rule) throw new SpiffeIdError(rule, name);
  return name;
}

export function formatSpiffeId(id: SpiffeId): string {
  return `${SCHEME_PREFIX}${id.trustDomain}${id.path}`;
}

/** The SPIFFE ID of a trust domain itself (`spiffe://example.org`), as Workload API bundle maps key it. */
export function trustDomainId(trustDomain: string): string {
  return `${SCHEME_PREFIX}${trustDomain}`;
}

function trustDomainRule(trustDomain: string): SpiffeIdRule | null {
  // SPIFFE-ID §2.1: lowercase letters, digits, dots, dashes, underscores; no percent-encoding.
  if (!/^[a-z0-9._-]*$/.test(trustDomain)) return 'trust_domain_chars';
  if (trustDomain.length === 0) return 'trust_domain_missing';
  if (trustDomain.length > MAX_TRUST_DOMAIN_BYTES) return 'trust_domain_too_long';
  return null;
}

function pathRuleOf(path: string): SpiffeIdRule | null {
  if (path === '') return null;
  const segments = path.slice(1).split('/');
  for (const [index, segment] of segments.entries()) {
    // SPIFFE-ID §2.2: segments use a-z A-Z 0-9 . - _ only.
    if (!/^[a-zA-Z0-9._-]*$/.test(segment)) return 'path_chars';
    if (segment === '.' || segment === '..') return 'path_dot_segment';
    if (segment === '') return index === segments.length - 1 ? 'path_trailing_slash' : 'path_empty_segment';
  }
  return null;
}

function abbreviate(input: string): string {
  return input.length > 120 ? `${input.slice(0, 117)}...` : input;
}

/** Why `name` is not a valid trust domain, or null; for config files that report problems by entry. */
export function trustDomainProblem(name: string): string | null {
  try {
    parseTrustDomain(name);
    return null;
  } catch (err) {
    if (err instanceof SpiffeIdError) return err.message;
    throw err;
  }
}

/** Why `id` is not a valid SPIFFE ID in `trustDomain`, or null; for config files that report problems by entry. */
export function spiffeIdProblem(id: string, trustDomain: string): string | null {
  try {
    if (parseSpiffeId(id).trustDomain !== trustDomain) return `'${id}' is outside trust_domain ${trustDomain}`;
    return null;
  } catch (err) {
    if (err instanceof SpiffeIdError) return err.message;
    throw err;
  }
}
