/** RFC 9110 §12.4.2: a weight of 0 (`q=0`, `q=0.0`, …) means "not acceptable". */
const ZERO_WEIGHT = /^q=0(\.0{0,3})?$/i;

/**
 * Whether an `Accept` header names `mediaType` (`type/subtype`) as acceptable (RFC 9110 §12.5.1): its
 * media ranges are compared by type and subtype, case-insensitively, their parameters aside; a range
 * with weight 0 does not count. Only the type itself counts, not a wildcard range (`*` or `type/*`):
 * this is for protocols that require a client to list the types it takes, as MCP's Streamable HTTP
 * transport does.
 */
export function acceptListsMediaType(accept: string | undefined, mediaType: string): boolean {
  if (accept === undefined) return false;
  const wanted = mediaType.toLowerCase();
  return outsideQuotes(accept, ',').some((range) => {
    const [type = '', ...parameters] = outsideQuotes(range, ';').map((part) => part.trim());
    return (
      type.toLowerCase() === wanted && !parameters.some((parameter) => ZERO_WEIGHT.test(parameter.replace(/\s/g, '')))
    );
  });
}

/** Splits at `separator` except inside a quoted string (RFC 9110 §5.6.4), where a backslash escapes. */
function outsideQuotes(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i] ?? '';
    if (quoted && char === '\\') {
      current += char + (text[i + 1] ?? '');
      i++;
      continue;
    }
    if (char === '"') quoted = !quoted;
    if (char === separator && !quoted) {
      parts.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  parts.push(current);
  return parts;
}
