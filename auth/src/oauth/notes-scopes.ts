/** The scopes of the notes tools (docs/protocol.md#tools); a module of its own so clients need not load the tools. */
export const NOTES_READ_SCOPE = 'notes:read';
export const NOTES_WRITE_SCOPE = 'notes:write';
/** Every scope a notes server knows; a policy grant of any other is a typo (docs/protocol.md#policy-file). */
export const NOTES_SCOPES: readonly string[] = [NOTES_READ_SCOPE, NOTES_WRITE_SCOPE];
