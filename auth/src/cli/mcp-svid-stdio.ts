#!/usr/bin/env node
import { runCommand } from './command.js';
import { mcpSvidStdioCommand } from './mcp-svid-stdio-command.js';

// Exit explicitly: a token request still in flight when a signal stopped the wrapper must not keep it alive.
process.exit(await runCommand(mcpSvidStdioCommand(), process.argv.slice(2)));
