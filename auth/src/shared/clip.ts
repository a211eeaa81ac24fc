/**
 * docs/protocol.md#audit-lines: the most characters of one client-chosen string (an unverified
 * `sub`, a tool name, a header value) an audit line or an error detail carries. Decided here only.
 */
export const CLIENT_TEXT_MAX_CHARS = 128;

/** Bounds client-chosen text before it reaches an audit line or an error detail. */
export function clip(value: string, max = CLIENT_TEXT_MAX_CHARS): string {
  return value.length <= max ? value : `${value.slice(0, max)}…`;
}
