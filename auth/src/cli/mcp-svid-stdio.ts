#!/usr/bin/env node
import { runCommand } from './command.js';
import { mcpSvidStdioCommand } from './mcp-svid-stdio-command.js';

const code = await runCommand(mcpSvidStdioCommand(), process.argv.slice(2));
// Exit explicitly once stderr is flushed: a token request still in flight when a signal stopped the
// wrapper (or a Workload API reconnect timer) must not keep the process alive.
process.stderr.write('', () => process.exit(code));
