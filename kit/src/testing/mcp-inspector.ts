import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The MCP Inspector declares Node >= 22.19 (we promise 20.12), so it is not a dependency of the repository:
 * `npm run test-tools` installs it into tools/mcp-inspector (docs/install.md#test-tools), and `.ci/run` does.
 */
const INSPECTOR_DIR = fileURLToPath(new URL('../../../../tools/mcp-inspector/', import.meta.url));

/**
 * The MCP Inspector's command-line client (`--cli`), which the tests of every stdio MCP server of the
 * repository run (`notegate proxy`, `notegate-rag mcp`): one place that knows where it is installed, and the
 * `node:test` option that skips a test, saying why, when it is not.
 */
export function mcpInspectorCli(): { readonly cli: string; readonly skip: string | false } {
  const cli = join(INSPECTOR_DIR, 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');
  return {
    cli,
    skip: existsSync(cli) ? false : `the MCP Inspector is not installed in ${INSPECTOR_DIR} (npm run test-tools)`,
  };
}
