/** The message of any thrown value, for an operator-facing line (never a stack trace). */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
