import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * The MCP Inspector's command-line client (`--cli`), which the tests of every stdio MCP server of the
 * repository run (`notegate proxy`, `notegate-rag mcp`): one place that knows where it is installed.
 */
export function mcpInspectorCli(): string {
  const manifest = createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector/package.json');
  return join(dirname(manifest), 'clients/launcher/build/index.js');
}
