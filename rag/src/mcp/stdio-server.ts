import { McpServer, type StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import type { z } from 'zod';
import type { NotesEngine } from '../notes/notes-engine.js';
import { type NotesToolSpec, notesTools } from './notes-tools.js';
import { TOOL_REFUSALS } from './tool-errors.js';
import { runTool, toolErrorResult } from './tool-result.js';

export interface StdioServerOptions {
  /** The server's name and version in the MCP handshake. */
  readonly name: string;
  readonly version: string;
  /** Refusals and faults, with what was wrong (stderr: stdout carries the protocol only). */
  readonly log: (line: string) => void;
}

/**
 * The local MCP server of one person (docs/retrieval.md#a-local-mcp-server): the notes tools over the
 * engine, on stdio, through the official SDK's `serveStdio` (it serves a 2025-11-25 `initialize` and a
 * 2026-07-28 `server/discover` opening alike). No token: stdio is the user's own process. A refusal or a
 * failure is a tool error with the tools' fixed text; what was wrong goes to `log`. Resolves once the
 * client has gone (stdin ended) or `stop` resolved, with the connection closed.
 */
export async function serveNotesOverStdio(
  engine: NotesEngine,
  options: StdioServerOptions,
  stop: Promise<unknown>,
): Promise<void> {
  const tools = notesTools(engine);
  const transport = new StdioServerTransport();
  let ended: () => void = () => undefined;
  const clientGone = new Promise<void>((resolve) => {
    ended = resolve;
  });
  const handle = serveStdio(
    () => {
      const server = new McpServer(
        { name: options.name, version: options.version },
        { capabilities: { tools: { listChanged: false } } },
      );
      register(server, tools.search, options.log);
      register(server, tools.read, options.log);
      if (tools.write) register(server, tools.write, options.log);
      return server;
    },
    { transport, onerror: (err) => options.log(`protocol: ${err.message}`) },
  );
  // serveStdio owns the transport and its onclose; chained here to hear that the client has gone.
  const closeConnection = transport.onclose;
  transport.onclose = () => {
    closeConnection?.();
    ended();
  };
  await Promise.race([clientGone, stop]);
  await handle.close();
}

function register<In extends z.ZodType, Out extends z.ZodType<Record<string, unknown>>, Ready>(
  server: McpServer,
  spec: NotesToolSpec<In, Out, Ready>,
  log: (line: string) => void,
): void {
  // Widened to the SDK's schema type so the callback receives the validated value as unknown; parsing it
  // again with the same schema gives it back its static type.
  const inputSchema: StandardSchemaWithJSON = spec.input;
  const outputSchema: StandardSchemaWithJSON = spec.output;
  const { name, title, description } = spec;
  server.registerTool(name, { title, description, inputSchema, outputSchema }, async (args) => {
    const preparation = spec.prepare(spec.input.parse(args));
    if ('refused' in preparation) {
      log(`${name} refused: ${preparation.refused.detail}`);
      return toolErrorResult(TOOL_REFUSALS[preparation.refused.code]);
    }
    return runTool(spec, preparation.ready, (tool, err) =>
      log(`${tool} failed: ${err instanceof Error ? err.message : String(err)}`),
    );
  });
}
