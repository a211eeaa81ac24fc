/** The message of any thrown value, for an operator-facing line (never a stack trace). */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The name and message of any thrown value, for an audit detail or a log line (never a stack trace). */
export function describeThrown(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return String(err);
}
