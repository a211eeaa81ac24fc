/** Bounds client-chosen text before it reaches an audit line or an error detail. */
export function clip(value: string, max = 80): string {
  return value.length <= max ? value : `${value.slice(0, max)}…`;
}
