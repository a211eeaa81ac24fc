/** RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ). */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

export function isScopeToken(value: string): boolean {
  return SCOPE_TOKEN.test(value);
}

/**
 * Splits a scope parameter into its scope tokens, or returns null when it is not exactly
 * scope tokens separated by single spaces (RFC 6749 §3.3: `scope-token *( SP scope-token )`), so a
 * leading, trailing or doubled space is malformed. A token repeated in the list counts once.
 */
export function parseScopeParameter(value: string): ReadonlySet<string> | null {
  const tokens = value.split(' ');
  for (const token of tokens) if (!isScopeToken(token)) return null;
  return new Set(tokens);
}

/** RFC 9068 §2.2.3 / RFC 8693 §4.2: granted scopes as one string, sorted, single spaces. */
export function formatScope(scopes: Iterable<string>): string {
  return [...scopes].sort().join(' ');
}
