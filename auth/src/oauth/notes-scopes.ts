/** The scopes of the notes tools (docs/protocol.md#tools); a module of its own so clients need not load the tools. */
export const NOTES_READ_SCOPE = 'notes:read';
export const NOTES_WRITE_SCOPE = 'notes:write';

/**
 * The scope each notes tool needs (docs/protocol.md#tools), the one table the notes server registers its
 * tools with and the agent requests least privilege from.
 */
export const NOTES_TOOL_SCOPES: ReadonlyMap<string, string> = new Map([
  ['notes.search', NOTES_READ_SCOPE],
  ['notes.read', NOTES_READ_SCOPE],
  ['notes.write', NOTES_WRITE_SCOPE],
]);
/** Every scope a notes server knows; a policy grant of any other is a typo (docs/protocol.md#policy-file). */
export const NOTES_SCOPES: readonly string[] = [NOTES_READ_SCOPE, NOTES_WRITE_SCOPE];
