import { shellWords } from './shell-words.js';
import { terminalJson } from './terminal-text.js';

/**
 * The MCP hosts whose config entry `--print-config` prints (docs/protocol.md#proxy): Claude Code, Claude
 * Desktop, Cursor and VS Code. Each keeps stdio servers in a JSON file of its own format.
 */
export const MCP_HOSTS = ['claude', 'claude-desktop', 'cursor', 'vscode'] as const;
export type McpHost = (typeof MCP_HOSTS)[number];

/** A local stdio MCP server as a host starts it: absolute paths, since a host runs it from anywhere. */
export interface StdioServerEntry {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  /** Variables the server needs that the host's environment may not carry. */
  readonly env?: Readonly<Record<string, string>>;
}

export interface HostEntry {
  /** The JSON to merge into the host's file, ready to paste. */
  readonly json: string;
  /** Where it goes, in a sentence (and, for Claude Code, the command that adds it instead). */
  readonly where: string;
}

/**
 * The host's config entry for a stdio server. Claude Code (`.mcp.json`) and Cursor (`mcp.json`) list
 * servers under `mcpServers`, VS Code (`mcp.json`) under `servers` with a required `type`; Claude
 * Desktop (`claude_desktop_config.json`) under `mcpServers` without one.
 */
export function hostEntry(host: McpHost, entry: StdioServerEntry): HostEntry {
  const server = {
    ...(host === 'claude' || host === 'vscode' ? { type: 'stdio' } : {}),
    command: entry.command,
    args: [...entry.args],
    ...(entry.env && Object.keys(entry.env).length > 0 ? { env: { ...entry.env } } : {}),
  };
  // Paths are the user's folders, named by anyone (docs/security.md#operators-terminals): the same JSON, safe to print.
  const json = (value: unknown) => `${terminalJson(value, 2)}\n`;
  switch (host) {
    case 'claude':
      return {
        json: json({ mcpServers: { [entry.name]: server } }),
        where:
          "Claude Code: merge it into .mcp.json at a project's root, or add it for every project with: " +
          shellWords(['claude', 'mcp', 'add-json', '--scope', 'user', entry.name, terminalJson(server)]),
      };
    case 'claude-desktop':
      return {
        json: json({ mcpServers: { [entry.name]: server } }),
        where:
          'Claude Desktop: merge it into claude_desktop_config.json (Settings > Developer > Edit Config), then restart it',
      };
    case 'cursor':
      return {
        json: json({ mcpServers: { [entry.name]: server } }),
        where: 'Cursor: merge it into ~/.cursor/mcp.json (every project) or .cursor/mcp.json in a project',
      };
    case 'vscode':
      return {
        json: json({ servers: { [entry.name]: server } }),
        where:
          'VS Code: merge it into .vscode/mcp.json in a workspace, or the user mcp.json (MCP: Open User Configuration)',
      };
  }
}
