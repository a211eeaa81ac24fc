/**
 * A start-up problem the operator must fix: a bad flag, config key or file.
 * The CLI prints the message (never a stack) and exits with code 2.
 */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
