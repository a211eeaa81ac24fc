// RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ), separated by single spaces.
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/** The scope tokens of a `scope` claim, or undefined when it is not a well-formed list. */
export function parseScope(scope: string): ReadonlySet<string> | undefined {
  const tokens = scope.split(' ');
  if (!tokens.every((token) => SCOPE_TOKEN.test(token))) return undefined;
  return new Set(tokens);
}

export function isScopeToken(value: string): boolean {
  return SCOPE_TOKEN.test(value);
}
