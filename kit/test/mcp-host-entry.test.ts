import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hostEntry, MCP_HOSTS } from '../src/mcp-host-entry.js';

const ENTRY = {
  name: 'notes',
  command: '/usr/bin/node',
  args: ['/opt/notegate/rag/bin/notegate-rag.js', 'mcp', '--config', "/home/ada/it's/vaults.json"],
  env: { NOTEGATE_MODEL_CACHE: '/home/ada/models' },
};
const SERVER = { command: ENTRY.command, args: ENTRY.args, env: ENTRY.env };

describe('hostEntry', () => {
  it("writes each host's own format: the key it lists servers under, and whether it wants a type", () => {
    const table: [(typeof MCP_HOSTS)[number], unknown][] = [
      ['claude', { mcpServers: { notes: { type: 'stdio', ...SERVER } } }],
      ['claude-desktop', { mcpServers: { notes: SERVER } }],
      ['cursor', { mcpServers: { notes: SERVER } }],
      ['vscode', { servers: { notes: { type: 'stdio', ...SERVER } } }],
    ];
    assert.deepEqual(
      table.map(([host]) => host),
      [...MCP_HOSTS],
    );
    for (const [host, expected] of table) {
      const { json, where } = hostEntry(host, ENTRY);
      assert.deepEqual(JSON.parse(json), expected, host);
      assert.ok(json.endsWith('}\n'), host);
      assert.ok(where.length > 0);
    }
  });

  it('leaves env out when there is none, and gives Claude Code the add-json command, quoted for a shell', () => {
    const { json, where } = hostEntry('claude', { ...ENTRY, env: {} });
    assert.equal(JSON.parse(json).mcpServers.notes.env, undefined);
    const quoted = /claude mcp add-json --scope user notes '(.*)'$/.exec(where)?.[1];
    assert.ok(quoted, where);
    assert.deepEqual(JSON.parse(quoted.replaceAll(`'\\''`, "'")), {
      type: 'stdio',
      command: ENTRY.command,
      args: ENTRY.args,
    });
  });
});
