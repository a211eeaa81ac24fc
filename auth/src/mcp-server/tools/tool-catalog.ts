import type { McpServer } from '@modelcontextprotocol/server';
import { UsageError } from '@notegate/kit/cli';
import type { ProtocolError } from '../../errors/protocol-error.js';
import { isScopeToken } from '../../oauth/scope.js';

/** A tool as the server registers it: its scope, an argument check, and how to add it to an SDK server. */
export interface ToolRegistration {
  readonly name: string;
  /** The OAuth scope a caller needs; a registration without one makes the server refuse to start. */
  readonly scope?: string;
  /**
   * The arguments, before the call reaches the SDK: `invalid` (why) when they violate the input schema,
   * else `refused` when the tool would refuse them anyway (a path outside the vault, an index that is
   * not there), so that the detail goes to the audit line; else `accepted`, which hands what was
   * prepared to the tool's handler for the web Request the SDK will be given.
   */
  readonly screen: (args: unknown) => ArgumentScreening;
  readonly register: (server: McpServer) => void;
}

export type ArgumentScreening =
  | { readonly invalid: string }
  | { readonly refused: ProtocolError }
  | { readonly accepted: (request: Request) => void };

/** A registration whose scope was checked at start-up. */
export interface ScopedTool extends ToolRegistration {
  readonly scope: string;
}

// SEP-986 tool names, as the SDK's validator accepts them.
const TOOL_NAME = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * The tools and their scopes, validated once at start-up: every tool has a
 * well-formed scope (docs/protocol.md#tools: "Every tool declares its scope;
 * the server refuses to start otherwise") and a unique, valid name.
 */
export class ToolCatalog {
  readonly #tools: ReadonlyMap<string, ScopedTool>;

  private constructor(tools: ReadonlyMap<string, ScopedTool>) {
    this.#tools = tools;
  }

  static create(registrations: readonly ToolRegistration[]): ToolCatalog {
    const tools = new Map<string, ScopedTool>();
    for (const tool of registrations) {
      if (!TOOL_NAME.test(tool.name)) throw new UsageError(`tool '${tool.name}': not a valid tool name`);
      if (tools.has(tool.name)) throw new UsageError(`tool '${tool.name}': registered twice`);
      const { scope } = tool;
      if (scope === undefined || scope === '') {
        throw new UsageError(`tool '${tool.name}' has no declared scope; every tool needs one`);
      }
      if (!isScopeToken(scope))
        throw new UsageError(`tool '${tool.name}': scope '${scope}' is not an RFC 6749 scope-token`);
      tools.set(tool.name, { ...tool, scope });
    }
    return new ToolCatalog(tools);
  }

  get(name: string): ScopedTool | undefined {
    return this.#tools.get(name);
  }

  /** For RFC 9728 scopes_supported: every tool scope, sorted, once. */
  get scopesSupported(): string[] {
    return [...new Set([...this.#tools.values()].map((tool) => tool.scope))].sort();
  }

  /** The tools a set of granted scopes unlocks, sorted by name (tools/list shows exactly these). */
  toolsGrantedBy(scopes: ReadonlySet<string>): ScopedTool[] {
    return [...this.#tools.values()]
      .filter((tool) => scopes.has(tool.scope))
      .sort((a, b) => (a.name < b.name ? -1 : 1));
  }
}
