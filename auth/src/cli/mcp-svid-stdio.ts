import { packageVersion, runCommand } from '@notegate/kit/cli';
import { mcpSvidStdioCommand } from './mcp-svid-stdio-command.js';

const program = { name: 'mcp-svid-stdio', version: packageVersion(import.meta.url) };
const code = await runCommand(mcpSvidStdioCommand(), process.argv.slice(2), program);
// Exit explicitly once stderr is flushed: a token request still in flight when a signal stopped the
// wrapper (or a Workload API reconnect timer) must not keep the process alive.
process.stderr.write('', () => process.exit(code));
