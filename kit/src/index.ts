/** `@notegate/kit`: small pieces both halves of notegate use. CLI pieces: `@notegate/kit/cli`; HTTP: `@notegate/kit/http`. */
export { writeFileAtomic } from './atomic-write.js';
export { describeThrown, errorMessage } from './error-message.js';
export { LoopSlices, runSteps, SLICE_MS, type Steps } from './loop-slices.js';
export { type HostEntry, hostEntry, MCP_HOSTS, type McpHost, type StdioServerEntry } from './mcp-host-entry.js';
export { randomHex } from './random-hex.js';
export { isRecord } from './records.js';
export { shellWords } from './shell-words.js';
export { describeTerminalControl, firstTerminalControl, terminalJson, terminalText } from './terminal-text.js';
