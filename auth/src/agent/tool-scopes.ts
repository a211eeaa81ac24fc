import { NOTES_READ_SCOPE, NOTES_WRITE_SCOPE } from '../oauth/notes-scopes.js';

/** The scope each known tool needs (docs/protocol.md#tools): the agent's default request, least privilege. */
const TOOL_SCOPES: ReadonlyMap<string, string> = new Map([
  ['notes.search', NOTES_READ_SCOPE],
  ['notes.write', NOTES_WRITE_SCOPE],
]);

export function scopeForTool(tool: string): string | undefined {
  return TOOL_SCOPES.get(tool);
}

export const KNOWN_TOOLS: readonly string[] = [...TOOL_SCOPES.keys()];
