import { NOTES_TOOL_SCOPES } from '../oauth/notes-scopes.js';

/** The scope a known tool needs (docs/protocol.md#tools): the agent's default request, least privilege. */
export function scopeForTool(tool: string): string | undefined {
  return NOTES_TOOL_SCOPES.get(tool);
}

export const KNOWN_TOOLS: readonly string[] = [...NOTES_TOOL_SCOPES.keys()];
